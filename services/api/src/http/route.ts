import type { Request, Response } from 'express';
import type Joi from 'joi';
import type { TenantData, TenantTx } from '@worktrack/db';
import type { AppDeps } from '../deps';
import type { Tenant } from './auth';
import { notFound, type ErrorCode } from './errors';
import type { Named } from '../write-rules';
import type { Permission } from './permissions';

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
  /**
   * The route takes a multipart/form-data body (uploads; other bodies get 415): its text fields,
   * validated as a body is (the handler gets them as `body`), and its one file part, received by
   * `receive` once the permission is checked.
   */
  multipart?: Multipart<B>;
  /**
   * A 200 carries the record's ETag (the hash of the body): a GET of one record, which then honours
   * If-None-Match, or a PATCH of a locked record (its new ETag).
   */
  etag?: true;
  /**
   * The records its body names that the write rules check (`write-rules.ts`: a project open, users
   * members): the pipeline checks them before the operation runs, for every caller alike.
   */
  references?: (body: B) => Named;
  /** How many requests it counts as against the daily quota (docs/decisions.md#limits): one unless declared. */
  countsAs?: (body: B) => number;
  /** Error codes beyond those every route of its kind can give (see `errorCodes`). */
  errors?: ErrorCode[];
}

/** Who acts, as which tenant, and the request they act in: what every operation runs for. */
export interface Caller {
  tenant: Tenant;
  /** The way it came in; who acts is the tenant's `actor`, which its events name. */
  via: 'api' | 'dashboard' | 'system';
  deps: AppDeps;
  /** The HTTP exchange it came in; none for an operator's command (`via: 'system'`). */
  req?: Request;
  res?: Response;
}

/** A multipart body's file, streamed to the object store under `storageKey` before the operation runs. */
export interface ReceivedUpload {
  id: string;
  storageKey: string;
  file: Express.Multer.File | undefined;
  /** The text fields, not yet validated. */
  fields: unknown;
  /** Removes the stored bytes: the pipeline calls it when the operation fails or never runs (an idempotent replay). */
  discard(): Promise<void>;
}

interface Multipart<B> {
  fields: Joi.ObjectSchema<B>;
  /** The name of the one file part. */
  file: string;
  /** The file part's name as the client gave it. */
  fileName: Joi.ObjectSchema;
  receive(caller: Caller): Promise<ReceivedUpload>;
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
  /**
   * Commits a change with its events (`TenantData.commitWithEvents`); within a bulk request, runs
   * it in the bulk's one transaction instead, its events recorded with the others in item order.
   */
  commit: TenantData['commitWithEvents'];
  /** The multipart body's file, when the route declares one (its fields are `body`). */
  upload: ReceivedUpload | undefined;
  tenant: Tenant;
  via: Caller['via'];
  deps: AppDeps;
  req?: Request;
  res?: Response;
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

/** A GET of one record: it answers with an ETag and honours If-None-Match. */
export const readsOneRecord = (route: RouteDefinition): boolean => route.method === 'get' && route.etag === true;

/** A write that locks its record: it honours If-Match. */
export const honoursIfMatch = (route: RouteDefinition): boolean => route.kind === 'authenticated' && route.locks !== undefined;

/** A 200 of these carries the record's ETag, as declared. */
export const answersWithEtag = (route: RouteDefinition): boolean => route.etag === true;

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
