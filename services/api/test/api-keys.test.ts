import { addMember, as, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess } from '@test-support/access-checks';

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let keyId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  keyId = (await as(h.app, org.liveKey).post('/v1/api-keys', { name: 'spare' })).body.id;
});
afterAll(() => h.close());

const ctx = () => ({ harness: h, org, otherOrg });

describe('POST /v1/api-keys', () => {
  itEnforcesAccess(ctx, () => ({ method: 'post', path: '/v1/api-keys', permission: 'api_keys:write', body: { name: 'x' } }), {
    namesResource: false,
  });

  it('returns the key once, stores only its hash, and the key works', async () => {
    const res = await as(h.app, org.liveKey).post('/v1/api-keys', { name: 'CI', permissions: ['tasks:read'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      name: 'CI',
      mode: 'live',
      permissions: ['tasks:read'],
      key: expect.stringMatching(/^tk_live_[A-Za-z0-9_-]{32}$/),
      prefix: res.body.key.slice(0, 12),
      expiresAt: null,
    });
    const stored = await h.db.apiKey.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(JSON.stringify(stored)).not.toContain(res.body.key);
    expect((await as(h.app, res.body.key).get('/v1/tasks')).status).toBe(200);
    expectError(await as(h.app, res.body.key).get('/v1/projects'), 403, 'forbidden');
    const listed = await as(h.app, org.liveKey).get('/v1/api-keys');
    expect(JSON.stringify(listed.body)).not.toContain(res.body.key);
  });

  it('creates test keys that reach only test data', async () => {
    const res = await as(h.app, org.liveKey).post('/v1/api-keys', { name: 'sandbox', mode: 'test', permissions: ['projects:read', 'projects:write'] });
    expect(res.body.key).toMatch(/^tk_test_/);
    const project = (await as(h.app, res.body.key).post('/v1/projects', { name: 'Sandbox' })).body.id;
    expectError(await as(h.app, org.liveKey).get(`/v1/projects/${project}`), 404, 'not_found');
    expect((await as(h.app, org.testKey).get(`/v1/projects/${project}`)).status).toBe(200);
  });

  it('is refused to test keys, so a leaked test key can never mint a live one', async () => {
    expectError(await as(h.app, org.testKey).post('/v1/api-keys', { name: 'escalate', mode: 'live' }), 403, 'forbidden');
    expectError(await as(h.app, org.testKey).get('/v1/api-keys'), 403, 'forbidden');
  });

  it('treats an expired key as unknown', async () => {
    const res = await as(h.app, org.liveKey).post('/v1/api-keys', { name: 'short', expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect(res.status).toBe(201);
    await h.db.apiKey.update({ where: { id: res.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectError(await as(h.app, res.body.key).get('/v1/tasks'), 401, 'unauthenticated');
  });

  it.each([
    [{}, 'name'],
    [{ name: 'x', permissions: ['tasks:destroy'] }, 'permissions'],
    [{ name: 'x', permissions: [] }, 'permissions'],
    [{ name: 'x', mode: 'staging' }, 'mode'],
    [{ name: 'x', expiresAt: 'soon' }, 'expiresAt'],
    [{ name: 'x', expiresAt: '2001-01-01T00:00:00.000Z' }, 'expiresAt'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).post('/v1/api-keys', body), 400, 'invalid_request', param);
  });

  it('never grants more than the calling key holds', async () => {
    const limited = await keyWith(h.db, org, ['api_keys:write', 'tasks:read']);
    expectError(await as(h.app, limited).post('/v1/api-keys', { name: 'escalate', permissions: ['*'] }), 403, 'forbidden', 'permissions');
    expect((await as(h.app, limited).post('/v1/api-keys', { name: 'ok', permissions: ['tasks:read'] })).status).toBe(201);
  });

  it('is refused to members, whose role does not allow key management', async () => {
    const member = await addMember(h.db, org, { role: 'member' });
    expectError(await as(h.app, member.key).post('/v1/api-keys', { name: 'x' }), 403, 'forbidden');
  });
});

describe('GET /v1/api-keys', () => {
  itEnforcesAccess(ctx, () => ({ method: 'get', path: '/v1/api-keys', permission: 'api_keys:write' }), { namesResource: false });

  it("lists the organization's keys without secrets or hashes", async () => {
    const res = await as(h.app, otherOrg.liveKey).get('/v1/api-keys');
    expect(res.status).toBe(200);
    expect(res.body.pagination.total).toBe(2);
    expect(res.body.data[0]).not.toHaveProperty('hash');
    expect(res.body.data[0]).not.toHaveProperty('key');
    expectError(await as(h.app, org.liveKey).get('/v1/api-keys?limit=101'), 400, 'invalid_request', 'limit');
  });
});

describe('DELETE /v1/api-keys/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'delete', path: `/v1/api-keys/${keyId}`, permission: 'api_keys:write' }), { namesResource: false });

  it('revokes a key at once, and 404s for another organization', async () => {
    const created = await as(h.app, org.liveKey).post('/v1/api-keys', { name: 'to revoke' });
    expectError(await as(h.app, otherOrg.liveKey).delete(`/v1/api-keys/${created.body.id}`), 404, 'not_found', 'keyId');
    expect((await as(h.app, created.body.key).get('/v1/tasks')).status).toBe(200);
    expect((await as(h.app, org.liveKey).delete(`/v1/api-keys/${created.body.id}`)).status).toBe(204);
    expectError(await as(h.app, created.body.key).get('/v1/tasks'), 401, 'unauthenticated');
    expectError(await as(h.app, org.liveKey).delete(`/v1/api-keys/${created.body.id}`), 404, 'not_found');
  });
});
