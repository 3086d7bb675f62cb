import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess } from '@test-support/access-checks';

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Main' })).body.id;
});
afterAll(() => h.close());

const ctx = () => ({ harness: h, org, otherOrg });

describe('POST /v1/projects', () => {
  itEnforcesAccess(ctx, () => ({ method: 'post', path: '/v1/projects', permission: 'projects:write', body: { name: 'x' } }), {
    namesResource: false,
  });

  it('creates a project with every field of the record', async () => {
    const res = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Launch', description: 'Q4', icon: 'rocket', color: '#ff8800' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^prj_/),
      name: 'Launch',
      description: 'Q4',
      icon: 'rocket',
      color: '#ff8800',
      archived: false,
      archivedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it.each([
    [{}, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 'x', color: 'red' }, 'color'],
    [{ name: 'x', color: '#12345' }, 'color'],
    [{ name: 'x', icon: 5 }, 'icon'],
    [{ name: 'x', archived: true }, 'archived'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).post('/v1/projects', body), 400, 'invalid_request', param);
  });
});

describe('GET /v1/projects', () => {
  itEnforcesAccess(ctx, () => ({ method: 'get', path: '/v1/projects', permission: 'projects:read' }), { namesResource: false });

  it('hides archived projects unless archived=true', async () => {
    const listOrg = await createOrg(h.db);
    const keep = (await as(h.app, listOrg.liveKey).post('/v1/projects', { name: 'Keep' })).body.id;
    const old = (await as(h.app, listOrg.liveKey).post('/v1/projects', { name: 'Old' })).body.id;
    await as(h.app, listOrg.liveKey).patch(`/v1/projects/${old}`, { archived: true }).expect(200);
    const active = await as(h.app, listOrg.liveKey).get('/v1/projects');
    expect(active.body.data.map((p: { id: string }) => p.id)).toEqual([keep]);
    expect(active.body.pagination).toEqual({ total: 1, limit: 50, offset: 0, hasMore: false, nextCursor: null });
    const all = await as(h.app, listOrg.liveKey).get('/v1/projects?archived=true');
    expect(all.body.data.map((p: { id: string }) => p.id)).toEqual([old, keep]);
    expect((await as(h.app, listOrg.testKey).get('/v1/projects?archived=true')).body.pagination.total).toBe(0);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['offset=-1', 'offset'],
    ['archived=maybe', 'archived'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, org.liveKey).get(`/v1/projects?${query}`), 400, 'invalid_request', param);
  });
});

describe('GET /v1/projects/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'get', path: `/v1/projects/${projectId}`, permission: 'projects:read' }), { namesResource: true });

  it('returns the project', async () => {
    expect((await as(h.app, org.liveKey).get(`/v1/projects/${projectId}`)).body).toMatchObject({ id: projectId, name: 'Main' });
  });
});

describe('PATCH /v1/projects/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'patch', path: `/v1/projects/${projectId}`, permission: 'projects:write', body: { name: 'Renamed' } }), {
    namesResource: true,
  });

  it('archives and unarchives, recording archivedAt', async () => {
    const id = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Cycle' })).body.id;
    const archived = await as(h.app, org.liveKey).patch(`/v1/projects/${id}`, { archived: true });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ archived: true, archivedAt: expect.stringMatching(/Z$/) });
    const restored = await as(h.app, org.liveKey).patch(`/v1/projects/${id}`, { archived: false, name: 'Cycle 2', color: '#abc' });
    expect(restored.body).toMatchObject({ archived: false, archivedAt: null, name: 'Cycle 2', color: '#abc' });
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ archived: 'yes' }, 'archived'],
    [{ color: '#zzz' }, 'color'],
    [{ owner: 'me' }, 'owner'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).patch(`/v1/projects/${projectId}`, body), 400, 'invalid_request', param);
  });
});

describe('DELETE /v1/projects/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'delete', path: `/v1/projects/${projectId}`, permission: 'projects:write' }), {
    namesResource: true,
  });

  it('deletes the project and its tasks', async () => {
    const id = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Doomed' })).body.id;
    const task = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 't', projectId: id })).body.id;
    expect((await as(h.app, org.liveKey).delete(`/v1/projects/${id}`)).status).toBe(204);
    expectError(await as(h.app, org.liveKey).get(`/v1/projects/${id}`), 404, 'not_found', 'projectId');
    expectError(await as(h.app, org.liveKey).get(`/v1/tasks/${task}`), 404, 'not_found');
  });
});
