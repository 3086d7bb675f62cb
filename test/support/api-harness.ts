import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { createLogger, loadApiConfig, type Logger } from '@worktrack/config';
import { newId, unscopedData, type Db, type SqlPool, type Mode, type Plan, type Role } from '@worktrack/db';
import { composeApi } from '../../services/api/src/compose';
import { KEY_CACHE_LIFETIME_MS } from '../../services/api/src/http/auth';
import { Conformance } from './openapi-conformance';
import { runDocument } from './run-document';
import type { AppDeps } from '../../services/api/src/deps';
import type { EventStreamsOptions } from '../../services/api/src/modules/events/stream/event-streams';
import { issueApiKey } from '../../services/api/src/modules/api-keys/issue-api-key';
import { bootstrapOrganization, type BootstrapResult } from '../../services/api/src/modules/organizations/bootstrap-organization';

export interface Harness {
  app: Express;
  deps: AppDeps;
  db: Db;
  /** The pool under `db`, for tests that read rows as a dump would. */
  pool: SqlPool;
  close(): Promise<void>;
}

/**
 * The app in-process against the real Postgres (the run's database) and Redis, under a Redis
 * prefix of its own so test files never share counters, idempotency records or queues. Two
 * harnesses given the same REDIS_PREFIX are two replicas: each has its own key cache.
 */
export function createHarness(
  overrides: NodeJS.ProcessEnv = {},
  {
    logger = createLogger('silent', 'test'),
    keyCacheLifetimeMs = KEY_CACHE_LIFETIME_MS,
    streams,
  }: { logger?: Logger; keyCacheLifetimeMs?: number; streams?: EventStreamsOptions } = {},
): Harness {
  // No SMTP_URL unless a test gives one: mails go to files, out of the working tree.
  const config = loadApiConfig({
    ...process.env,
    REDIS_PREFIX: `wt-test-${randomUUID().slice(0, 8)}`,
    MAIL_DIR: path.join(os.tmpdir(), 'worktrack-test-mail'),
    ...overrides,
  });
  const { app, deps, database, close } = composeApi(config, logger, { poolSize: 5, keyCacheLifetimeMs, streams });
  return {
    app,
    deps,
    db: database.db,
    pool: database.pool,
    async close() {
      await closeServerOf(app);
      await close();
    },
  };
}

export type TestOrg = BootstrapResult;

let orgCounter = 0;

export function createOrg(db: Db, options: { plan?: Plan; dailyQuota?: number | null } = {}): Promise<TestOrg> {
  orgCounter += 1;
  return bootstrapOrganization(unscopedData({ db }), {
    name: `Org ${orgCounter}`,
    email: `admin-${randomUUID()}@example.com`,
    plan: options.plan ?? 'pro',
    dailyQuota: options.dailyQuota ?? null,
  });
}

/** Adds a user with a role to an organization and returns the user's id and a key. */
export async function addMember(
  db: Db,
  org: TestOrg,
  options: { role?: Role; permissions?: string[]; mode?: Mode } = {},
): Promise<{ userId: string; key: string }> {
  const userId = newId('user');
  await db.user.create({ data: { id: userId, email: `${userId}@example.com`, name: 'Member' } });
  await db.membership.create({ data: { organizationId: org.organization.id, userId, role: options.role ?? 'member' } });
  const { key } = await issueApiKey(unscopedData({ db }).insertApiKey, {
    organizationId: org.organization.id,
    userId,
    name: 'member key',
    mode: options.mode ?? 'live',
    permissions: options.permissions ?? ['*'],
  });
  return { userId, key };
}

/** A key of the org's admin restricted to the given permissions. */
export async function keyWith(db: Db, org: TestOrg, permissions: string[], mode: Mode = 'live'): Promise<string> {
  const { key } = await issueApiKey(unscopedData({ db }).insertApiKey, {
    organizationId: org.organization.id,
    userId: org.user.id,
    name: 'restricted',
    mode,
    permissions,
  });
  return key;
}

let conformance: Conformance | undefined;

/**
 * One server per app, listening until the harness closes (unreferenced: it keeps no process alive):
 * given the app itself, supertest would start and close a server for every request.
 */
const servers = new WeakMap<Express, http.Server>();

/** Stops the app's server and its kept-alive connections, which would otherwise outlive the file. */
function closeServerOf(app: Express): Promise<void> {
  const server = servers.get(app);
  if (!server) return Promise.resolve();
  servers.delete(app);
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function serverOf(app: Express): http.Server {
  let server = servers.get(app);
  if (!server) {
    server = http.createServer(app).listen(0, '127.0.0.1');
    server.unref();
    servers.set(app, server);
  }
  return server;
}

/**
 * The shared test client: every response it receives is checked against the OpenAPI document the
 * app serves, so a response that disagrees with the document fails the test that made it.
 */
export function client(app: Express) {
  const checker = (conformance ??= new Conformance(runDocument(), runResponseValidators()));
  const server = serverOf(app);
  const checked = (method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    request(server)
      [method](path)
      // Uncompressed, as the API sends a small body: compression has tests of its own (http-behaviour.test.ts).
      .set('Accept-Encoding', 'identity')
      .expect((res) => checker.check(method, path, res));
  return {
    get: (path: string) => checked('get', path),
    post: (path: string) => checked('post', path),
    patch: (path: string) => checked('patch', path),
    delete: (path: string) => checked('delete', path),
  };
}

export function as(app: Express, key: string) {
  const auth = { Authorization: `Bearer ${key}` };
  const api = client(app);
  return {
    get: (path: string) => api.get(path).set(auth),
    post: (path: string, body?: object) => api.post(path).set(auth).send(body),
    patch: (path: string, body?: object) => api.patch(path).set(auth).send(body),
    delete: (path: string) => api.delete(path).set(auth),
  };
}

export function expectError(res: request.Response, status: number, code: string, param?: string | null): void {
  expect({ status: res.status, code: res.body?.error?.code, ...(param !== undefined && { param: res.body?.error?.param }) }).toEqual({
    status,
    code,
    ...(param !== undefined && { param }),
  });
  expect(typeof res.body.error.message).toBe('string');
  expect(typeof res.body.error.type).toBe('string');
}
