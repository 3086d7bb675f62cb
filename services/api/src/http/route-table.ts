// The route table: which paths and methods exist (404, 405 before authentication), and each route mounted on its router.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { AppDeps } from '../deps';
import { prepareOperation, validateInput } from '../pipeline';
import { bearerKey, requireTenant } from './auth';
import { etagOf, isNotModified } from './conditional';
import { ApiError, notFound } from './errors';
import { IdempotencyStore } from './idempotency';
import { matchedRoute } from './observability';
import { QuotaCharge, quotaStore } from './rate-limit';
import { answersWithEtag, type PublicRouteInput, type RouteDefinition } from './route';

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
const bySpecificity = (a: { path: string }, b: { path: string }): number => {
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

const parseJson = express.json({ limit: '1mb' });

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/**
 * The one decision on a request's media type: a route that declares a multipart body takes
 * multipart/form-data alone (its pipeline reads it), any other a JSON body; anything else is 415.
 * A request without a body is read as `{}` (a multipart route then finds no file part: 400).
 */
function readBody(route: { multipart?: unknown }): RequestHandler {
  return (req, res, next) => {
    if (!hasBody(req.headers)) {
      req.body = {};
      return next();
    }
    if (route.multipart) {
      return next(req.is('multipart/form-data') ? undefined : new ApiError('unsupported_media_type', 'This endpoint takes multipart/form-data'));
    }
    // Only what express.json parses: an application/*+json body would be left unread, as if empty.
    if (!req.is('application/json')) return next(new ApiError('unsupported_media_type', 'Request bodies must be application/json'));
    parseJson(req, res, next);
  };
}

/** `/tasks/:taskId/comments` with its parameters → `/tasks/tsk_1/comments` */
const fillPath = (path: string, params: object) => path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent((params as Record<string, string>)[name]!));

/** A 201's Location: the new record's URL (docs/decisions.md#conditional-requests). */
function locationOf(route: RouteDefinition, params: object, body: unknown, publicBaseUrl: string): string {
  const target = route.location?.(body, params) ?? `${fillPath(route.path, params)}/${(body as { id: string }).id}`;
  return /^https?:\/\//.test(target) ? target : `${publicBaseUrl.replace(/\/+$/, '')}/v1${target}`;
}

/** Writes a route's answer, with the headers its status and kind call for: Location, ETag (or a 304). */
function send(
  req: Request,
  res: Response,
  route: RouteDefinition,
  params: object,
  deps: AppDeps,
  outcome: { status: number; body: unknown; replayed?: boolean },
): void {
  const { status, body } = outcome;
  if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (status === 201) res.setHeader('Location', locationOf(route, params, body, deps.config.publicBaseUrl));
  if (status === 200 && answersWithEtag(route)) {
    const etag = etagOf(body);
    res.setHeader('ETag', etag);
    if (route.method === 'get' && isNotModified(req.get('if-none-match'), etag)) {
      res.status(304).end();
      return;
    }
  }
  res.status(status);
  if (body === undefined) res.end();
  else res.json(body);
}

/**
 * Public routes go on the router before authentication; authenticated ones after it. Each kind is
 * mounted most specific first, so that Express picks, of the routes matching a path, the one the
 * route table (`routeGuard`) matched: `/members/invitations`, never `/members/:userId`.
 */
export function mountPublicRoutes(router: Router, deps: AppDeps, routes: readonly RouteDefinition[]): void {
  for (const route of [...routes].sort(bySpecificity)) {
    if (route.kind !== 'public') continue;
    router[route.method](route.path, readBody(route), async (req, res) => {
      matchedRoute(req, route.path);
      const input = validateInput(route, req);
      const body = await route.handler({ ...(input as PublicRouteInput<unknown, unknown, unknown>), deps });
      send(req, res, route, input.params as object, deps, { status: route.status, body });
    });
  }
}

/** Each authenticated route's request enters the operation pipeline; an Idempotency-Key's replay or claim wraps its run. */
export function mountRoutes(router: Router, deps: AppDeps, routes: readonly RouteDefinition[]): void {
  const idempotency = new IdempotencyStore(deps.redis, deps.config.redisPrefix);
  const quota = new QuotaCharge(quotaStore(deps.redis, deps.config.redisPrefix), deps.logger);
  for (const route of [...routes].sort(bySpecificity)) {
    if (route.kind !== 'authenticated') continue;
    router[route.method](route.path, readBody(route), async (req, res) => {
      matchedRoute(req, route.path);
      const tenant = requireTenant(req);
      const operation = await prepareOperation(
        route,
        { tenant, via: 'api', deps, req, res },
        { params: req.params, query: req.query, body: req.body, ifMatch: req.get('if-match') },
      );
      try {
        if (route.countsAs) await quota.charge(tenant, res, route.countsAs(operation.body));
        const outcome = await idempotency.run(
          {
            idempotencyKey: req.method === 'POST' ? req.get('idempotency-key') : undefined,
            apiKey: bearerKey(req),
            apiKeyId: tenant.keyId,
            // An upload is identified by its URL alone, whatever the file's bytes.
            signature: `${req.method} ${req.originalUrl}\n${route.multipart ? '' : JSON.stringify(operation.body)}`,
          },
          async () => ({ status: route.status, body: await operation.run() }),
        );
        send(req, res, route, operation.params as object, deps, outcome);
      } finally {
        await operation.settle();
      }
    });
  }
}
