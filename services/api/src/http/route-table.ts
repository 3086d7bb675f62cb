import type { RequestHandler } from 'express';
import { ApiError, notFound } from './errors';
import { matchedRoute } from './observability';

/** What the table needs of a route: its method and its Express path (`/tasks/:taskId`). */
interface RouteLike {
  method: string;
  path: string;
}

interface KnownPath {
  /** As the routes declare it: `/tasks/:taskId`. */
  path: string;
  segments: string[];
  /** Upper case, HEAD wherever GET is (Express answers it with the GET route). */
  methods: Set<string>;
  /** The `Allow` header. */
  allow: string;
}

const ALLOW_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

const isParam = (segment: string) => segment.startsWith(':');

/** One character per segment, `0` literal and `1` parameter: of two templates matching one path, the more specific sorts first. */
const specificity = (path: string) =>
  path
    .split('/')
    .map((segment) => (isParam(segment) ? '1' : '0'))
    .join('');

/**
 * Orders routes so that, of two matching one path, the more specific comes first: the one with a
 * literal segment where the other has a parameter, leftmost first (`/members/invitations` before
 * `/members/:userId`), as OpenAPI matches concrete paths before templated ones. Stable otherwise.
 */
export const bySpecificity = (a: { path: string }, b: { path: string }): number => {
  const [x, y] = [specificity(a.path), specificity(b.path)];
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The paths of the route table and the methods each serves, read the way the API reference reads
 * them: case-sensitive and strict (`/Tasks` and `/tasks/` are not `/tasks`), a parameter matching
 * one non-empty segment, and a concrete path winning over a templated one.
 */
export class RouteTable {
  private readonly paths: KnownPath[];

  constructor(routes: readonly RouteLike[]) {
    const methods = new Map<string, Set<string>>();
    for (const { method, path } of routes) {
      const served = methods.get(path) ?? new Set<string>();
      served.add(method.toUpperCase());
      if (method.toUpperCase() === 'GET') served.add('HEAD');
      methods.set(path, served);
    }
    this.paths = [...methods]
      .map(([path, served]) => ({
        path,
        segments: path.slice(1).split('/'),
        methods: served,
        allow: ALLOW_ORDER.filter((method) => served.has(method)).join(', '),
      }))
      .sort(bySpecificity);
  }

  /** The known path a request path is (undecoded, relative to where the table is mounted), or undefined. */
  match(path: string): Readonly<KnownPath> | undefined {
    const segments = path.slice(1).split('/');
    return this.paths.find(
      (known) =>
        known.segments.length === segments.length && known.segments.every((segment, i) => (isParam(segment) ? segments[i] !== '' : segment === segments[i])),
    );
  }
}

/**
 * In front of a router's routes (docs/decisions.md#errors, #http-behaviour-and-secrets-at-rest): a known path with a method it does not serve →
 * 405 `method_not_allowed` with `Allow`; `OPTIONS` on a known path → 204 with `Allow`; an unknown
 * path → 404, or, with `unknownPaths: 'next'`, on to whatever else the app serves. Runs before
 * authentication: the table is public, in the OpenAPI document.
 */
export function routeGuard(table: RouteTable, { unknownPaths = 'not_found' }: { unknownPaths?: 'not_found' | 'next' } = {}): RequestHandler {
  return (req, res, next) => {
    const known = table.match(req.path);
    if (!known) {
      if (unknownPaths === 'next') return next();
      throw notFound(null, `Unknown route: ${req.method} ${req.baseUrl}${req.path}`);
    }
    matchedRoute(req, known.path);
    if (known.methods.has(req.method)) return next();
    res.setHeader('Allow', known.allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    throw new ApiError('method_not_allowed', `${req.method} is not allowed on ${req.baseUrl}${known.path}; it allows ${known.allow}`);
  };
}
