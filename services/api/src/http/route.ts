import type { Request, Response, Router } from 'express';
import Joi from 'joi';
import type { TenantTx } from '@worktrack/db';
import type { AppDeps } from '../deps';
import { bearerKey, requireTenant, type Tenant } from './auth';
import { assertIfMatch, etagOf, isNotModified } from './conditional';
import { ApiError, forbidden, notFound, type ErrorCode } from './errors';
import { IdempotencyStore } from './idempotency';
import { matchedRoute } from './observability';
import type { Permission } from './permissions';
import { bySpecificity } from './route-table';
import { jsonBody, validate } from './validation';

/**
 * A record the route is about, found within the tenant's scope or answered with 404: the only way
 * a handler gets a record named by a path id (tenancy by signature, not by habit).
 */
export interface ResourceFinder<R> {
  /** The path parameter holding the id, e.g. `taskId`. */
  param: string;
  /** `No such ${name}`. */
  name: string;
  /** The tenant's row, through the tenant-bound data layer (in a transaction or not). */
  find(data: TenantTx, id: string): Promise<R | null>;
  /** Locks the tenant's row for the rest of the transaction; whether it exists. */
  lockRow(tx: TenantTx, id: string): Promise<boolean>;
  /** The record its GET answers with, of which its ETag is the hash. */
  toRecord(row: R): unknown;
}

export interface Resource<R> extends ResourceFinder<R> {
  /** The tenant's record, or a 404 naming the parameter. */
  load(data: TenantTx, id: string): Promise<R>;
  /** The same, with the row locked for the rest of the transaction (read-modify-write). */
  lock(tx: TenantTx, id: string): Promise<R>;
}

export function defineResource<R>(finder: ResourceFinder<R>): Resource<R> {
  const missing = () => notFound(finder.param, `No such ${finder.name}`);
  return {
    ...finder,
    async load(data, id) {
      return (await finder.find(data, id)) ?? Promise.reject(missing());
    },
    async lock(tx, id) {
      if (!(await finder.lockRow(tx, id))) throw missing();
      return this.load(tx, id);
    },
  };
}

interface Common<P, Q, B> {
  /**
   * The operation's name in the OpenAPI document, which generated clients name their functions
   * after: a short camelCase verb and resource (`createTask`, `listTaskComments`), unique, and
   * never changed once published. Given here, not derived from the path, so that it stays put
   * when a path is reworded.
   */
  operationId: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express path, relative to /v1 (`/tasks/:taskId`). */
  path: string;
  /** One line for the API reference. */
  summary: string;
  /** The reference's section. */
  tag: string;
  description?: string;
  params?: Joi.ObjectSchema<P>;
  query?: Joi.ObjectSchema<Q>;
  body?: Joi.ObjectSchema<B>;
  /** The route reads a multipart/form-data body itself (uploads), with these text fields; other bodies get 415. */
  multipart?: { fields: Joi.ObjectSchema; file: string };
  /** Error codes beyond those every route of its kind can give (see `errorCodes`). */
  errors?: ErrorCode[];
}

type Success<Res> = { status: 200 | 201 | 202; response: Joi.Schema<Res> } | { status: 204; response: null };

interface Created<P, Res> {
  /**
   * For a 201: where the new record is, relative to /v1 or absolute. Without it, the route's path
   * (its parameters filled in) followed by the record's id.
   */
  location?: (result: Res, params: P) => string;
}

export interface RouteInput<P, Q, B, R> {
  params: P;
  query: Q;
  body: B;
  /** The record named by the path, loaded within the tenant's scope (when the route declares a resource). */
  resource: R;
  /**
   * Locks the record named by the path for the rest of the transaction and loads it (when the
   * route declares `locks`), or answers 404; then, under the lock, 412 if the request's If-Match
   * no longer names it, so that of two writers holding the same ETag one wins and one gets 412.
   */
  lock: (tx: TenantTx) => Promise<R>;
  tenant: Tenant;
  deps: AppDeps;
  req: Request;
  res: Response;
}

export type AuthenticatedRoute<P = any, Q = any, B = any, R = any, Res = any> = Common<P, Q, B> &
  Created<P, Res> &
  Success<Res> & {
    kind: 'authenticated';
    permission: Permission;
    resource?: Resource<R>;
    locks?: Locked<P, R>;
    handler: (input: RouteInput<P, Q, B, R>) => Promise<Res>;
  };

export interface PublicRouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  deps: AppDeps;
}

/** A route that needs no API key: its body carries the credential (an invitation token). */
export type PublicRoute<P = any, Q = any, B = any, Res = any> = Common<P, Q, B> &
  Created<P, Res> &
  Success<Res> & {
    kind: 'public';
    handler: (input: PublicRouteInput<P, Q, B>) => Promise<Res>;
  };

export type RouteDefinition = AuthenticatedRoute | PublicRoute;

/** The resource a PATCH or DELETE locks: one, or one that depends on the path (a task's comment). */
type Locked<P, R> = Resource<R> | ((params: P) => Resource<R>);

/** A GET of one record (its path ends with the record's id): it answers with an ETag and honours If-None-Match. */
export const readsOneRecord = (route: RouteDefinition): boolean => route.method === 'get' && /\/:\w+$/.test(route.path);

/** A write that locks its record: it honours If-Match. */
export const honoursIfMatch = (route: RouteDefinition): boolean => route.kind === 'authenticated' && route.locks !== undefined;

/** A 200 of these carries the record's ETag: a GET of one record, and a PATCH that honours If-Match (the new ETag). */
export const answersWithEtag = (route: RouteDefinition): boolean => readsOneRecord(route) || (honoursIfMatch(route) && route.method === 'patch');

type Empty = Record<string, never>;
type Returns<Res> = { status: 200 | 201 | 202; response: Joi.Schema<Res> } | { status: 204; response: null };

/**
 * Declares an authenticated route, the one definition of it: permission, inputs (validated with
 * joi), the resource it loads, the response for its status, the error codes it can give, and the
 * handler, which gets typed inputs and must return the declared response. The app mounts it, the
 * OpenAPI document describes it, and the tests check every response against that description.
 */
export function defineRoute<P = Empty, Q = Empty, B = Empty, R = undefined, Res = undefined>(
  definition: Omit<Common<P, Q, B>, never> &
    Created<P, NoInfer<Res>> &
    Returns<Res> & {
      permission: Permission;
      resource?: Resource<R>;
      locks?: Locked<P, R>;
      handler: (input: RouteInput<P, Q, B, R>) => Promise<NoInfer<Res>>;
    },
): AuthenticatedRoute<P, Q, B, R, Res> {
  return { ...definition, kind: 'authenticated' } as AuthenticatedRoute<P, Q, B, R, Res>;
}

export function definePublicRoute<P = Empty, Q = Empty, B = Empty, Res = undefined>(
  definition: Common<P, Q, B> & Created<P, NoInfer<Res>> & Returns<Res> & { handler: (input: PublicRouteInput<P, Q, B>) => Promise<NoInfer<Res>> },
): PublicRoute<P, Q, B, Res> {
  return { ...definition, kind: 'public' } as PublicRoute<P, Q, B, Res>;
}

/** Every error code a route can answer: those of its kind, of its inputs, and its own. */
export function errorCodes(route: RouteDefinition): ErrorCode[] {
  // Any request: headers over 16 KB (Node's parser), a method its path does not serve (docs/decisions.md#http-behaviour-and-secrets-at-rest).
  const codes = new Set<ErrorCode>(['headers_too_large', 'method_not_allowed', 'internal_error', 'unavailable']);
  if (route.kind === 'authenticated') for (const code of ['unauthenticated', 'forbidden', 'rate_limited'] as const) codes.add(code);
  if (route.params || route.query || route.body || route.multipart) codes.add('invalid_request');
  if (route.body || route.multipart || route.method === 'post' || route.method === 'patch') {
    for (const code of ['invalid_json', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(code);
  }
  if (route.kind === 'authenticated' && (route.resource || route.locks)) codes.add('not_found');
  if (honoursIfMatch(route)) codes.add('precondition_failed');
  if (route.method === 'post' && route.kind === 'authenticated') codes.add('conflict'); // Idempotency-Key reuse
  for (const code of route.errors ?? []) codes.add(code);
  return [...codes];
}

const nothing = Joi.object({});

interface ValidatedInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

function validateInput(route: RouteDefinition, req: Request): ValidatedInput {
  const params = validate(route.params ?? nothing, req.params);
  const query = validate(route.query ?? nothing, req.query);
  const multipart = Boolean(req.is('multipart/form-data'));
  if (route.multipart && !multipart) throw new ApiError('unsupported_media_type', 'This endpoint takes multipart/form-data');
  if (!route.multipart && multipart) throw new ApiError('unsupported_media_type', 'Request bodies must be application/json');
  const body = route.multipart ? {} : validate(route.body ?? nothing, req.body ?? {});
  return { params, query, body };
}

export function assertPermission(tenant: Tenant, permission: Permission): void {
  if (!tenant.permissions.has(permission)) {
    throw forbidden(`This API key lacks the ${permission} permission, or its user's role does not allow it`);
  }
}

/**
 * Runs an authenticated route's operation for a tenant: the permission check, then the resource,
 * then the handler. The HTTP layer calls it after validation; so may any other caller of the
 * same operation (the dashboard), so that every rule lives in one place.
 */
export async function runOperation<P, Q, B, R, Res>(
  route: AuthenticatedRoute<P, Q, B, R, Res>,
  input: { params: P; query: Q; body: B; tenant: Tenant; deps: AppDeps; req: Request; res: Response },
): Promise<Res> {
  assertPermission(input.tenant, route.permission);
  const idOf = (resource: Resource<R>) => (input.params as Record<string, string>)[resource.param]!;
  const resource = route.resource ? await route.resource.load(input.deps.data(input.tenant), idOf(route.resource)) : (undefined as R);
  const lock = async (tx: TenantTx): Promise<R> => {
    if (!route.locks) throw new Error(`${route.method} ${route.path} locks no resource`);
    const locked = typeof route.locks === 'function' ? route.locks(input.params) : route.locks;
    const row = await locked.lock(tx, idOf(locked));
    assertIfMatch(input.req.get('if-match'), etagOf(locked.toRecord(row)));
    return row;
  };
  return route.handler({ ...input, resource, lock });
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
    router[route.method](route.path, jsonBody, async (req, res) => {
      matchedRoute(req, route.path);
      const input = validateInput(route, req);
      const body = await route.handler({ ...(input as PublicRouteInput<unknown, unknown, unknown>), deps });
      send(req, res, route, input.params as object, deps, { status: route.status, body });
    });
  }
}

export function mountRoutes(router: Router, deps: AppDeps, routes: readonly RouteDefinition[]): void {
  const idempotency = new IdempotencyStore(deps.redis, deps.config.redisPrefix);
  for (const route of [...routes].sort(bySpecificity)) {
    if (route.kind !== 'authenticated') continue;
    router[route.method](route.path, jsonBody, async (req, res) => {
      matchedRoute(req, route.path);
      const tenant = requireTenant(req);
      assertPermission(tenant, route.permission);
      const input = validateInput(route, req);

      const outcome = await idempotency.run(
        {
          idempotencyKey: req.method === 'POST' ? req.get('idempotency-key') : undefined,
          apiKey: bearerKey(req),
          apiKeyId: tenant.keyId,
          // An upload is identified by its URL alone, whatever the file's bytes.
          signature: `${req.method} ${req.originalUrl}\n${route.multipart ? '' : JSON.stringify(input.body)}`,
        },
        async () => ({ status: route.status, body: await runOperation(route, { ...input, tenant, deps, req, res }) }),
      );
      send(req, res, route, input.params as object, deps, outcome);
    });
  }
}
