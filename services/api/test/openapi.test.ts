import { mkdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { EVENT_TYPES } from '@worktrack/events';
import { launchBrowser } from '@test-support/browser';
import { repoRoot } from '@test-support/processes';
import { apiRoutes, publicRoutes } from '../src/routes';
import type { Response } from 'supertest';
import type { OpenApiDocument } from '../src/openapi/document';
import { Conformance } from '@test-support/openapi-conformance';
import { ResponseValidators } from '@test-support/response-validators';
import { as, client, createHarness, createOrg, type Harness } from '@test-support/api-harness';
import { watchConsole } from '@test-support/page-checks';

let h: Harness;
interface DescribedOperation {
  operationId?: string;
  description?: string;
  'x-permission'?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; schema: { format?: string } }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { headers?: Record<string, unknown> }>;
}
interface Schema {
  [keyword: string]: unknown;
  properties?: Record<string, Schema>;
}
let document: {
  openapi: string;
  paths: Record<string, Record<string, DescribedOperation>>;
  webhooks: Record<string, Record<string, DescribedOperation>>;
  components: { schemas: Record<string, Schema> };
};

beforeAll(async () => {
  h = createHarness();
  const res = await client(h.app).get('/v1/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
});
afterAll(() => h.close());

const openApiPath = (expressPath: string) => `/v1${expressPath.replace(/:(\w+)/g, '{$1}')}`;

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document by a third-party validator, served without a key', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('describes every mounted route, public ones without security', () => {
    for (const route of [...apiRoutes, ...publicRoutes]) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method];
      expect({ route: `${route.method} ${route.path}`, described: operation !== undefined }).toEqual({
        route: `${route.method} ${route.path}`,
        described: true,
      });
      if (route.kind === 'public') expect(operation!.security).toEqual([]);
    }
    const described = Object.values(document.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
    // And the event stream, served by a handler of its own.
    expect(described).toBe(apiRoutes.length + publicRoutes.length + 1);
  });

  it("is what the shared test client checks every response against: a body or status it doesn't declare fails", async () => {
    const served = document as unknown as OpenApiDocument;
    const conformance = new Conformance(served, new ResponseValidators(served.components));
    const org = await createOrg(h.db);
    const project = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Checked' });
    const res = (body: unknown, status = 200, headers: Record<string, string> = { etag: '"e"' }) =>
      ({ status, body, text: JSON.stringify(body), headers }) as unknown as Response;
    expect(() => conformance.check('get', `/v1/projects/${project.body.id}`, res(project.body))).not.toThrow();
    expect(() => conformance.check('get', `/v1/projects/${project.body.id}`, res(project.body, 200, {}))).toThrow(/requires the ETag header/);
    expect(() => conformance.check('get', `/v1/projects/${project.body.id}`, res({ ...project.body, extra: 1 }))).toThrow(/disagrees/);
    expect(() => conformance.check('get', `/v1/projects/${project.body.id}`, res({ ...project.body, archived: 'no' }))).toThrow(/disagrees/);
    expect(() => conformance.check('get', `/v1/projects/${project.body.id}`, res(project.body, 202))).toThrow(/not declared/);
    const error = { error: { code: 'quota_exceeded', message: 'x', param: null, type: 'quota_error' } };
    expect(() => conformance.check('get', `/v1/projects/${project.body.id}`, res(error, 403))).toThrow(/disagrees/);
  });

  it('says the events need events:read, which a key holding webhooks:read has too (docs/decisions.md#tenancy-and-keys)', () => {
    for (const path of ['/v1/events', '/v1/events/{eventId}', '/v1/events/feed', '/v1/events/stream']) {
      const operation = document.paths[path]!.get!;
      expect({ path, permission: operation['x-permission'] }).toEqual({ path, permission: 'events:read' });
      expect(operation.description).toContain('a key holding `webhooks:read` has it too');
    }
    expect(document.paths['/v1/webhooks']!.get!.description).toMatch(/Needs the `webhooks:read` permission\.$/);
  });

  it('has a webhooks entry for each of the 20 event types', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('names who caused the event in every webhook body and event record (docs/decisions.md#history-actors-and-live-events)', () => {
    const actor = { $ref: '#/components/schemas/Actor' };
    for (const type of EVENT_TYPES) {
      const body = document.webhooks[type]!.post!.requestBody!.content['application/json']!.schema;
      expect({ type, required: body.required, actor: body.properties?.actor }).toEqual({ type, required: expect.arrayContaining(['actor']), actor });
    }
    const record = document.components.schemas.EventRecord!;
    expect({ required: record.required, actor: record.properties?.actor }).toEqual({ required: expect.arrayContaining(['actor']), actor });
  });
});

describe('what client generators read in it', () => {
  const operations = () => [...Object.values(document.paths), ...Object.values(document.webhooks)].flatMap((item) => Object.values(item));
  /** Every schema node below a value, depth first. */
  const nodes = (value: unknown): Schema[] =>
    typeof value === 'object' && value !== null ? [value as Schema, ...Object.values(value).flatMap((child) => nodes(child))] : [];

  it('names every operation and webhook entry with a short camelCase operationId, unique', () => {
    const ids = operations().map((operation) => operation.operationId ?? '');
    expect(ids).toHaveLength(apiRoutes.length + publicRoutes.length + 1 + EVENT_TYPES.length);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]{2,39}$/.test(id))).toEqual([]);
    expect(ids.length - new Set(ids).size).toBe(0);
    expect([
      document.paths['/v1/tasks']!.post!.operationId,
      document.paths['/v1/tasks/{taskId}/comments']!.get!.operationId,
      document.paths['/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver']!.post!.operationId,
      document.webhooks['member.role_changed']!.post!.operationId,
    ]).toEqual(['createTask', 'listTaskComments', 'redeliverWebhookDelivery', 'memberRoleChanged']);
  });

  it('names no schema after a global of JavaScript, Node or the DOM (File, Error, Event, Comment...)', () => {
    const dom = readFileSync(require.resolve('typescript/lib/lib.dom.d.ts'), 'utf8');
    const globals = new Set([...Object.getOwnPropertyNames(globalThis), ...[...dom.matchAll(/^declare var (\w+)\b/gm)].map((m) => m[1]!)]);
    expect(globals).toContain('Comment');
    expect(Object.keys(document.components.schemas).filter((name) => globals.has(name))).toEqual([]);
  });

  it('declares every input timestamp as a date-time, in query, path and body alike', () => {
    const timestamps = ['dueDate', 'dueBefore', 'dueAfter', 'updatedSince', 'createdSince', 'expiresAt', 'since', 'until'];
    const inputs = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((operation) => [
        ...(operation.parameters ?? []).map(({ name, schema }) => [name, schema] as const),
        ...Object.values(operation.requestBody?.content ?? {}).flatMap(({ schema }) => Object.entries(schema.properties ?? {})),
      ])
      .filter(([name]) => timestamps.includes(name));
    expect([...new Set(inputs.map(([name]) => name))].sort()).toEqual([...timestamps].sort());
    expect(inputs.filter(([, schema]) => schema.format !== 'date-time').map(([name]) => name)).toEqual([]);
  });

  it('says maps with propertyNames and a value schema, not patternProperties beside additionalProperties: false', () => {
    expect(nodes(document).filter((node) => 'patternProperties' in node)).toEqual([]);
    expect(document.components.schemas.Task!.properties!.customFields).toEqual({
      type: 'object',
      propertyNames: { pattern: '^.{1,100}$' },
      additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { const: null }] },
    });
  });

  it('gives an uploaded file its media type (OpenAPI 3.1), not format: binary', () => {
    const upload = document.paths['/v1/files']!.post!.requestBody!.content['multipart/form-data']!.schema;
    expect(upload.properties!.file).toEqual({ type: 'string', contentMediaType: 'application/octet-stream' });
    expect(nodes(document).filter((node) => node.format === 'binary')).toEqual([]);
  });

  it('declares 405 with its Allow header and 431 on every operation', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect({ at: `${method} ${path}`, allow: Object.keys(operation.responses['405']?.headers ?? {}), has431: '431' in operation.responses }).toEqual({
          at: `${method} ${path}`,
          allow: expect.arrayContaining(['Allow']),
          has431: true,
        });
      }
    }
  });
});

describe('GET /docs', () => {
  let browser: Browser;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = h.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    server.close();
  });

  it('renders the reference with its operations, loading nothing from outside the service, under its security headers', async () => {
    const page = await browser.newPage();
    // A Content-Security-Policy violation (an inline style or image the reference needs) is a console error.
    const consoleErrors = watchConsole(page);
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) outside.push(request.url());
    });
    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
    // One block per operation and one per webhook event.
    expect(await page.locator('.opblock').count()).toBe(apiRoutes.length + publicRoutes.length + 1 + EVENT_TYPES.length);
    expect(await page.locator('.info .title').textContent()).toContain('worktrack API');
    const artifacts = path.join(repoRoot, 'test-artifacts');
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, 'docs.png'), fullPage: false });
    expect(outside).toEqual([]);
    expect(consoleErrors).toEqual([]);
  }, 30_000);
});
