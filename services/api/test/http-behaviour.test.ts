import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import request from 'supertest';
import { newId } from '@worktrack/db';
import { apiRoutes, publicRoutes } from '../src/routes';
import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { signedIn } from '@test-support/dashboard-session';
import { seedTasks } from '@test-support/seed-tasks';

/* docs/decisions.md#errors and #http-behaviour-and-secrets-at-rest: the failed-auth throttle, compression, caching, 405 and strict routing. */

let h: Harness;
let org: TestOrg;
let server: http.Server;
let projectId: string;

beforeAll(async () => {
  h = createHarness({ TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: '100' });
  org = await createOrg(h.db);
  server = http.createServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Hardening' }).expect(201)).body.id;
  await seedTasks(h.db, { organizationId: org.organization.id, projectId, creatorId: org.user.id, assignees: [org.user.id], count: 100 });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

const unknownKey = () => `tk_live_${'u'.repeat(24)}${Math.random().toString(36).slice(2, 10)}`;

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came on the wire, before any decoding. */
  bytes: Buffer;
}

/** A GET over a real socket, keeping the body's bytes as sent: supertest would decode them. */
function rawGet(path: string, headers: Record<string, string>): Promise<RawAnswer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const DECODE: Record<string, (bytes: Buffer) => Buffer> = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync };

describe('failed authentication throttle', () => {
  const address = '198.51.100.7';
  const from = (key: string) => request(h.app).get('/v1/tasks?limit=1').set('X-Forwarded-For', address).set('Authorization', `Bearer ${key}`);

  it('serves a valid key from an address past its limit of unknown keys, and still refuses its unknown keys with 429', async () => {
    for (let i = 0; i < 100; i += 1) expectError(await from(unknownKey()), 401, 'unauthenticated');

    // Two valid keys the key cache has not seen: each is looked up, found and served.
    expect((await from(org.liveKey)).status).toBe(200);
    expect((await from(org.testKey)).status).toBe(200);

    const refused = await from(unknownKey());
    expectError(refused, 429, 'rate_limited', null);
    expect(refused.body.error.type).toBe('rate_limit_error');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);

    expect((await from(org.liveKey)).status).toBe(200);
  });
});

describe('compression', () => {
  const auth = () => ({ Authorization: `Bearer ${org.liveKey}` });

  it.each(['br', 'gzip'])('compresses a page of 100 tasks with %s when the request accepts it', async (encoding) => {
    const plain = await rawGet(`/v1/tasks?projectId=${projectId}&limit=100`, { ...auth(), 'Accept-Encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const page = JSON.parse(plain.bytes.toString('utf8')) as { data: unknown[] };
    expect(page.data).toHaveLength(100);

    const packed = await rawGet(`/v1/tasks?projectId=${projectId}&limit=100`, { ...auth(), 'Accept-Encoding': encoding });
    expect(packed.status).toBe(200);
    expect(packed.headers['content-encoding']).toBe(encoding);
    expect(packed.headers.vary).toMatch(/Accept-Encoding/i);
    expect(packed.headers['content-length']).toBeUndefined();
    expect(packed.bytes.length).toBeLessThan(plain.bytes.length / 3);
    expect(JSON.parse(DECODE[encoding]!(packed.bytes).toString('utf8'))).toEqual(page);
  });

  it.each(['br', 'gzip'])('compresses the OpenAPI document with %s', async (encoding) => {
    const res = await rawGet('/v1/openapi.json', { 'Accept-Encoding': encoding });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    const document = JSON.parse(DECODE[encoding]!(res.bytes).toString('utf8')) as { openapi: string };
    expect(document.openapi).toMatch(/^3\.1/);
  });

  it('prefers br when both are accepted, and compresses HTML too', async () => {
    const browser = await signedIn(h, { organizationId: org.organization.id, userId: org.user.id });
    const page = await browser.get('/dashboard/tasks').set('Accept-Encoding', 'gzip, deflate, br').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-encoding']).toBe('br');
    // supertest decoded it: the page as the browser renders it.
    expect(page.text.length).toBeGreaterThan(1024);
    expect(page.text).toMatch(/<html/i);
  });

  it('leaves bodies under 1 KiB alone, and requests that do not accept compression', async () => {
    const small = await rawGet('/v1/tasks?limit=1', { ...auth(), 'Accept-Encoding': 'br, gzip' });
    expect(small.status).toBe(200);
    expect(small.bytes.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.bytes.toString('utf8')).data).toHaveLength(1);

    const notAccepted = await rawGet('/v1/openapi.json', {});
    expect(notAccepted.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(notAccepted.bytes.toString('utf8')).openapi).toMatch(/^3\.1/);
  });

  it('never compresses partial content', async () => {
    const css = await request(h.app).get('/dashboard/sign-in').expect(200);
    const href = /href="(\/dashboard\/assets\/dashboard\.css[^"]*)"/.exec(css.text)?.[1];
    expect(href).toBeDefined();
    const whole = await rawGet(href!, { 'Accept-Encoding': 'gzip' });
    expect(whole.headers['content-encoding']).toBe('gzip');
    const part = await rawGet(href!, { 'Accept-Encoding': 'gzip', Range: 'bytes=0-2047' });
    expect(part.status).toBe(206);
    expect(part.headers['content-encoding']).toBeUndefined();
    expect(part.bytes.equals(zlib.gunzipSync(whole.bytes).subarray(0, 2048))).toBe(true);
  });
});

describe('Cache-Control', () => {
  it('is no-store on authenticated answers, successes and errors alike', async () => {
    const admin = as(h.app, org.liveKey);
    expect((await admin.get('/v1/tasks').expect(200)).headers['cache-control']).toBe('no-store');
    expect((await admin.post('/v1/projects', { name: 'Cached?' }).expect(201)).headers['cache-control']).toBe('no-store');
    expect((await admin.get(`/v1/tasks/${newId('task')}`).expect(404)).headers['cache-control']).toBe('no-store');
    expect((await request(h.app).get('/v1/tasks').expect(401)).headers['cache-control']).toBe('no-store');
  });

  it('is no-store on the answer holding a presigned download URL', async () => {
    const fileId = newId('file');
    await h.db.file.create({
      data: {
        id: fileId,
        organizationId: org.organization.id,
        mode: 'live',
        projectId,
        name: 'private.txt',
        size: 1,
        contentType: 'text/plain',
        storageKey: `${org.organization.id}/live/${fileId}`,
        uploaderId: org.user.id,
      },
    });
    const res = await as(h.app, org.liveKey).get(`/v1/files/${fileId}/download`).expect(200);
    expect(res.body.url).toMatch(/^https?:\/\//);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('is no-store on dashboard pages, while the public reference stays cacheable', async () => {
    const browser = await signedIn(h, { organizationId: org.organization.id, userId: org.user.id });
    expect((await browser.get('/dashboard/tasks').expect(200)).headers['cache-control']).toBe('no-store');
    expect((await request(h.app).get('/v1/openapi.json').expect(200)).headers['cache-control']).toBeUndefined();
  });
});

describe('405 Method Not Allowed', () => {
  const methodNotAllowed = (res: request.Response, allow: string) => {
    expect({ status: res.status, allow: res.headers.allow, body: res.body }).toEqual({
      status: 405,
      allow,
      body: { error: { code: 'method_not_allowed', type: 'validation_error', message: expect.any(String), param: null } },
    });
  };

  it('answers a known path with a method it does not serve, naming those it serves, before any key is checked', async () => {
    methodNotAllowed(await request(h.app).put('/v1/tasks').set('Authorization', `Bearer ${org.liveKey}`), 'GET, HEAD, POST');
    methodNotAllowed(await request(h.app).delete('/v1/tasks'), 'GET, HEAD, POST');
    methodNotAllowed(
      await request(h.app)
        .post(`/v1/tasks/${newId('task')}`)
        .set('Authorization', `Bearer ${unknownKey()}`),
      'GET, HEAD, PATCH, DELETE',
    );
    methodNotAllowed(await request(h.app).post('/v1/openapi.json'), 'GET, HEAD');
    methodNotAllowed(await request(h.app).get('/v1/invitations/accept'), 'POST');
  });

  it('matches /v1/members/invitations as itself, never as /v1/members/{userId}', async () => {
    const admin = { Authorization: `Bearer ${org.liveKey}` };
    methodNotAllowed(await request(h.app).patch('/v1/members/invitations').set(admin).send({ role: 'guest' }), 'GET, HEAD');
    methodNotAllowed(await request(h.app).delete('/v1/members/invitations').set(admin), 'GET, HEAD');
    methodNotAllowed(await request(h.app).get('/v1/members/invite').set(admin), 'POST');
    expect((await as(h.app, org.liveKey).get('/v1/members/invitations')).status).toBe(200);
  });

  it('answers the service paths outside /v1 the same way', async () => {
    methodNotAllowed(await request(h.app).post('/healthz'), 'GET, HEAD');
    methodNotAllowed(await request(h.app).delete('/readyz'), 'GET, HEAD');
    methodNotAllowed(await request(h.app).post('/metrics'), 'GET, HEAD');
    expect((await request(h.app).get('/healthz')).status).toBe(200);
  });

  it('answers OPTIONS on a known path with 204 and the same Allow', async () => {
    const res = await request(h.app).options(`/v1/tasks/${newId('task')}`);
    expect({ status: res.status, allow: res.headers.allow }).toEqual({ status: 204, allow: 'GET, HEAD, PATCH, DELETE' });
  });

  it('answers PUT on every path of the route table with 405 and the methods the table declares for it', async () => {
    const served = new Map<string, string[]>();
    for (const { method, path } of [...apiRoutes, ...publicRoutes]) served.set(path, [...(served.get(path) ?? []), method]);
    for (const [path, methods] of served) {
      const res = await request(h.app).put(`/v1${path.replace(/:\w+/g, 'x_1')}`);
      const allow = ['get', 'head', 'post', 'patch', 'delete']
        .filter((m) => methods.includes(m) || (m === 'head' && methods.includes('get')))
        .map((m) => m.toUpperCase());
      expect({ path, status: res.status, allow: res.headers.allow }).toEqual({ path, status: 405, allow: allow.join(', ') });
    }
  });
});

describe('strict, case-sensitive routing', () => {
  it.each([
    '/v1/Tasks',
    '/v1/tasks/',
    '/V1/tasks',
    '/v1/TASKS',
    '/v1/tasks/tsk_x/',
    '/v1/openapi.json/',
    '/v1//tasks',
    '/v1',
    '/v1/',
    '/healthz/',
    '/Healthz',
    '/metrics/',
  ])('%s is an unknown route (404), with a valid key or none', async (path) => {
    expectError(await request(h.app).get(path).set('Authorization', `Bearer ${org.liveKey}`), 404, 'not_found');
    expectError(await request(h.app).get(path), 404, 'not_found');
    expectError(await request(h.app).post(path), 404, 'not_found');
  });

  it('still serves the exact paths', async () => {
    expect((await as(h.app, org.liveKey).get('/v1/tasks?limit=1')).status).toBe(200);
    expect((await request(h.app).get('/v1/openapi.json')).status).toBe(200);
  });
});
