import request from 'supertest';
import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = createHarness();
  org = await createOrg(h.db);
});
afterAll(() => h.close());

describe('error bodies', () => {
  it('answers unknown routes with 404 in the error body, with or without /v1', async () => {
    expectError(await as(h.app, org.liveKey).get('/v1/nothing-here'), 404, 'not_found');
    expectError(await request(h.app).get('/elsewhere'), 404, 'not_found');
    expectError(await request(h.app).get('/v1/nothing-here'), 404, 'not_found');
  });

  it('answers a known path with a method it does not serve with 405 in the error body', async () => {
    const res = await request(h.app).put('/v1/tasks').set('Authorization', `Bearer ${org.liveKey}`);
    expectError(res, 405, 'method_not_allowed', null);
    expect(res.body.error.type).toBe('validation_error');
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await request(h.app)
      .post('/v1/projects')
      .set('Authorization', `Bearer ${org.liveKey}`)
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expectError(res, 400, 'invalid_json');
    expect(res.body.error.type).toBe('validation_error');
  });

  it('answers a body that is not JSON with 415, and a body that is not an object with 400', async () => {
    const text = await request(h.app).post('/v1/projects').set('Authorization', `Bearer ${org.liveKey}`).set('Content-Type', 'text/plain').send('name=x');
    expectError(text, 415, 'unsupported_media_type');
    expectError(await as(h.app, org.liveKey).post('/v1/projects', ['name']), 400, 'invalid_request');
  });

  it('answers an oversized body with 413', async () => {
    expectError(await as(h.app, org.liveKey).post('/v1/projects', { name: 'x', description: 'y'.repeat(1_100_000) }), 413, 'payload_too_large');
  });

  it('carries X-Request-Id on every response, echoing a sane incoming one', async () => {
    const ok = await as(h.app, org.liveKey).get('/v1/tasks');
    expect(ok.headers['x-request-id']).toMatch(/^req_/);
    const echoed = await request(h.app).get('/healthz').set('X-Request-Id', 'trace-123');
    expect(echoed.headers['x-request-id']).toBe('trace-123');
    const refused = await request(h.app).get('/v1/tasks').set('X-Request-Id', 'bad id with spaces');
    expect(refused.status).toBe(401);
    expect(refused.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers 503 without a stack trace or SQL when the database is unreachable', async () => {
    const unreachable = createHarness({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/worktrack' });
    try {
      const res = await as(unreachable.app, org.liveKey).get('/v1/tasks');
      expectError(res, 503, 'unavailable');
      expect(res.body.error.type).toBe('api_error');
      expect(JSON.stringify(res.body)).not.toMatch(/\.ts:|SELECT|prisma|ECONNREFUSED/i);
    } finally {
      await unreachable.close();
    }
  });
});

describe('error messages in people’s words, naming the field', () => {
  it('says a limit plainly', async () => {
    const project = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Wording' });
    const res = await as(h.app, org.liveKey).post('/v1/tasks', { projectId: project.body.id, title: 'x'.repeat(501) });
    expectError(res, 400, 'invalid_request', 'title');
    expect(res.body.error.message).toBe('title must be at most 500 characters');
  });

  it('tells a test key naming a live project (and a live key naming a test one) which is which', async () => {
    const live = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Live one' });
    const test = await as(h.app, org.testKey).post('/v1/projects', { name: 'Test one' });
    const fromTest = await as(h.app, org.testKey).post('/v1/tasks', { projectId: live.body.id, title: 'Write the launch' });
    expectError(fromTest, 400, 'invalid_request', 'projectId');
    expect(fromTest.body.error.message).toBe('That project is a live project and this is a test key: use a live key, or one of the test projects');
    const fromLive = await as(h.app, org.liveKey).post('/v1/tasks', { projectId: test.body.id, title: 'Write the launch' });
    expect(fromLive.body.error.message).toBe('That project is a test project and this is a live key: use a test key, or one of the live projects');
    const unknown = await as(h.app, org.liveKey).post('/v1/tasks', { projectId: 'prj_nothing', title: 'Write the launch' });
    expect(unknown.body.error.message).toBe('projectId must name a project of the organization');
    // Another organization's project, of either mode, is not told apart from none at all.
    const other = await createOrg(h.db);
    const foreign = await as(h.app, other.liveKey).post('/v1/projects', { name: 'Not yours' });
    for (const key of [org.liveKey, org.testKey]) {
      const res = await as(h.app, key).post('/v1/tasks', { projectId: foreign.body.id, title: 'Write the launch' });
      expectError(res, 400, 'invalid_request', 'projectId');
      expect(res.body.error.message).toBe('projectId must name a project of the organization');
    }
  });

  it('says to use the Bearer scheme when another one is sent', async () => {
    const res = await request(h.app).get('/v1/projects').set('Authorization', `Token ${org.liveKey}`);
    expectError(res, 401, 'unauthenticated');
    expect(res.body.error.message).toBe('Use "Authorization: Bearer <API key>": the scheme must be Bearer, followed by the key');
    const malformed = await request(h.app).get('/v1/projects').set('Authorization', 'Bearer not-a-key');
    expect(malformed.body.error.message).toMatch(/^Malformed API key: keys start with tk_live_ or tk_test_/);
  });
});
