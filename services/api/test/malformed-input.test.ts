import type { Server } from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import request from 'supertest';
import { createApiServer } from '../src/server';
import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

let h: Harness;
let org: TestOrg;
/** The server main.ts runs, so that what Node refuses before Express is covered too. */
let server: Server;
let projectId: string;
let taskId: string;
let labelId: string;

beforeAll(async () => {
  h = createHarness();
  org = await createOrg(h.db);
  server = createApiServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Inputs' })).body.id;
  taskId = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Original', projectId })).body.id;
  labelId = (await as(h.app, org.liveKey).post('/v1/labels', { name: 'Triage' })).body.id;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

const auth = () => ({ Authorization: `Bearer ${org.liveKey}` });
const api = () => request(server);

/** The error body of docs/decisions.md#errors and an X-Request-Id. */
function expectContractError(res: request.Response, status: number, code: string, param?: string | null): void {
  expectError(res, status, code, param);
  expect(res.headers['x-request-id']).toMatch(/^req_/);
}

describe('text that Postgres cannot store or that is not text', () => {
  const NUL = '\u0000';
  const LONE_HIGH = '\uD800';
  const LONE_LOW = '\uDC00';

  it.each([
    ['a NUL in a path id', () => api().get(`/v1/tasks/tsk_${encodeURIComponent(NUL)}`), 'taskId'],
    ['a NUL in a query value', () => api().get(`/v1/tasks?projectId=${encodeURIComponent(NUL)}`), 'projectId'],
    [
      'a NUL in a body string',
      () =>
        api()
          .post('/v1/projects')
          .send({ name: `a${NUL}b` }),
      'name',
    ],
    [
      'a NUL in a field name',
      () =>
        api()
          .post('/v1/tasks')
          .send({ title: 'x', projectId, customFields: { [`k${NUL}`]: 1 } }),
      'customFields',
    ],
    [
      'a lone high surrogate in a task title',
      () =>
        api()
          .post('/v1/tasks')
          .send({ title: `x${LONE_HIGH}`, projectId }),
      'title',
    ],
    [
      'a lone low surrogate in a custom field',
      () =>
        api()
          .patch(`/v1/tasks/${taskId}`)
          .send({ customFields: { k: LONE_LOW } }),
      'customFields.k',
    ],
  ])('refuses %s with 400 naming the field', async (_name, send, param) => {
    expectContractError(await send().set(auth()), 400, 'invalid_request', param);
  });

  it('refuses them on the unauthenticated POST /v1/invitations/accept too', async () => {
    const { token } = (await as(h.app, org.liveKey).post('/v1/members/invite', { email: 'nul@example.com', role: 'member' })).body;
    expectContractError(
      await api()
        .post('/v1/invitations/accept')
        .send({ token, name: `Nul${NUL}` }),
      400,
      'invalid_request',
      'name',
    );
    expect((await api().post('/v1/invitations/accept').send({ token, name: 'Nul' })).status).toBe(201);
  });

  it('keeps well-formed text, surrogate pairs included', async () => {
    const res = await api().post('/v1/projects').set(auth()).send({ name: 'Launch 🚀' });
    expect({ status: res.status, name: res.body.name }).toEqual({ status: 201, name: 'Launch 🚀' });
  });
});

describe('names, which are one line of text (docs/decisions.md#signing-in-safely)', () => {
  const FAKE_HEADER = 'Ann\r\nBcc: everyone@example.com';
  it.each([
    ['a line break', FAKE_HEADER],
    ['a tab', 'Ann\tLee'],
    ['a bell', 'Ann\u0007'],
    ['DEL', 'Ann\u007f'],
    ['a C1 control', 'Ann\u0085Lee'],
    ['a line separator', 'Ann\u2028Lee'],
  ])('refuses %s in the name of a project, a key, a label and an accepted invitation, naming the field and storing nothing', async (_, name) => {
    expectContractError(await api().post('/v1/projects').set(auth()).send({ name }), 400, 'invalid_request', 'name');
    expectContractError(await api().patch(`/v1/projects/${projectId}`).set(auth()).send({ name }), 400, 'invalid_request', 'name');
    expectContractError(await api().post('/v1/api-keys').set(auth()).send({ name }), 400, 'invalid_request', 'name');
    expectContractError(await api().post('/v1/labels').set(auth()).send({ name }), 400, 'invalid_request', 'name');
    expectContractError(await api().patch(`/v1/labels/${labelId}`).set(auth()).send({ name }), 400, 'invalid_request', 'name');
    const { token } = (await as(h.app, org.liveKey).post('/v1/members/invite', { email: 'one-line@example.com', role: 'member' })).body;
    const refused = await api().post('/v1/invitations/accept').send({ token, name });
    expectContractError(refused, 400, 'invalid_request', 'name');
    expect(refused.body.error.message).toBe('name must not contain control characters such as line breaks or tabs');
    expect(await h.db.user.count({ where: { email: 'one-line@example.com' } })).toBe(0);
    expect((await api().get(`/v1/projects/${projectId}`).set(auth())).body.name).toBe('Inputs');
    expect((await api().get('/v1/labels').set(auth())).body.data.map((label: { name: string }) => label.name)).toEqual(['Triage']);
  });

  it('takes names with accents, emoji and inner spaces', async () => {
    const res = await api().post('/v1/api-keys').set(auth()).send({ name: 'Zoë’s CI 🚀 key' });
    expect({ status: res.status, name: res.body.name }).toEqual({ status: 201, name: 'Zoë’s CI 🚀 key' });
  });
});

describe('bodies that cannot be read', () => {
  it.each(['gzip', 'deflate', 'br', 'zstd'])('answers a corrupt %s body with 400 invalid_json', async (encoding) => {
    const res = await api().post('/v1/projects').set(auth()).set('Content-Type', 'application/json').set('Content-Encoding', encoding).send('{"name":"x"}');
    expectContractError(res, 400, 'invalid_json');
  });

  it('reads a well-formed compressed body', async () => {
    const { port } = server.address() as net.AddressInfo;
    // fetch sends the bytes as they are; superagent would serialize a Buffer as JSON.
    const res = await fetch(`http://127.0.0.1:${port}/v1/projects`, {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: zlib.gzipSync(JSON.stringify({ name: 'Zipped' })),
    });
    expect({ status: res.status, name: ((await res.json()) as { name: string }).name }).toEqual({ status: 201, name: 'Zipped' });
  });

  it('answers 10,000-deep JSON with 400, with or without an Idempotency-Key', async () => {
    const deep = (open: string, close: string) => `${open.repeat(10_000)}1${close.repeat(10_000)}`;
    const bodies = [deep('{"a":', '}'), deep('[', ']'), `{"title":"x","projectId":"${projectId}","customFields":{"k":${deep('{"a":', '}')}}}`];
    for (const [i, body] of bodies.entries()) {
      for (const key of [`deep-${i}`, null]) {
        let req = api()
          .post(i === 2 ? '/v1/tasks' : '/v1/projects')
          .set(auth())
          .set('Content-Type', 'application/json');
        if (key) req = req.set('Idempotency-Key', key);
        expectContractError(await req.send(body), 400, 'invalid_request');
      }
    }
  });

  it('answers an undecodable %-escape in a path with 400', async () => {
    expectContractError(await api().get('/v1/tasks/%E0%A4%A').set(auth()), 400, 'invalid_request');
    expectContractError(await api().delete('/v1/projects/%ZZ').set(auth()), 400, 'invalid_request');
  });
});

describe('media types', () => {
  it.each(['application/merge-patch+json', 'application/vnd.api+json'])('answers a PATCH in %s with 415 and changes nothing', async (type) => {
    const res = await api()
      .patch(`/v1/tasks/${taskId}`)
      .set(auth())
      .set('Content-Type', type)
      .send(JSON.stringify({ title: 'Changed' }));
    expectContractError(res, 415, 'unsupported_media_type');
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${taskId}`)).body.title).toBe('Original');
  });

  it('answers a multipart PATCH with 415 and changes nothing', async () => {
    const res = await api().patch(`/v1/tasks/${taskId}`).set(auth()).field('title', 'Changed');
    expectContractError(res, 415, 'unsupported_media_type');
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${taskId}`)).body.title).toBe('Original');
  });
});

describe('__proto__', () => {
  it('refuses a __proto__ field as unknown, in a body and in a query', async () => {
    const body = '{"name":"x","__proto__":{"archived":true}}';
    expectContractError(await api().post('/v1/projects').set(auth()).set('Content-Type', 'application/json').send(body), 400, 'invalid_request', '__proto__');
    const patch = api().patch(`/v1/projects/${projectId}`).set(auth()).set('Content-Type', 'application/json');
    expectContractError(await patch.send(body), 400, 'invalid_request', '__proto__');
    expectContractError(await api().get('/v1/tasks?__proto__=x').set(auth()), 400, 'invalid_request', '__proto__');
  });
});

describe('requests refused by the HTTP parser', () => {
  it('answers a request line and headers over 16 KB with 431 in the error body, with an X-Request-Id', async () => {
    const res = await api().get('/v1/tasks').set(auth()).set('X-Padding', 'a'.repeat(20_000));
    expectContractError(res, 431, 'headers_too_large');
    expect(res.body.error.type).toBe('validation_error');
  });

  it('answers a malformed request with 400 in the error body, with an X-Request-Id', async () => {
    const { port } = server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    socket.end('GET /v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: nine\r\n\r\n');
    let raw = '';
    for await (const chunk of socket) raw += String(chunk);
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\nX-Request-Id: req_\w+/);
    expect(JSON.parse(body)).toEqual({ error: { code: 'invalid_request', message: expect.any(String), param: null, type: 'validation_error' } });
  });
});
