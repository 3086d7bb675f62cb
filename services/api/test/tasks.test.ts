import { addMember, as, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess } from '@test-support/access-checks';

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;
let taskId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Roadmap' })).body.id;
  taskId = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'First', projectId })).body.id;
});
afterAll(() => h.close());

const ctx = () => ({ harness: h, org, otherOrg });

describe('POST /v1/tasks', () => {
  itEnforcesAccess(ctx, () => ({ method: 'post', path: '/v1/tasks', permission: 'tasks:write', body: { title: 'x', projectId } }), {
    namesResource: false,
  });

  it('creates a task with defaults and every field of the record', async () => {
    const res = await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Write spec', projectId });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^tsk_[0-9A-Z]{26}$/),
      title: 'Write spec',
      description: null,
      status: 'todo',
      priority: 'medium',
      projectId,
      assigneeId: null,
      creatorId: org.user.id,
      dueDate: null,
      customFields: {},
      labelIds: [],
      parentId: null,
      subtasks: { total: 0, done: 0 },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.any(String),
    });
  });

  it('accepts every optional field', async () => {
    const member = await addMember(h.db, org);
    const body = {
      title: 'Full',
      projectId,
      description: 'All fields',
      status: 'in_progress',
      priority: 'high',
      assigneeId: member.userId,
      dueDate: '2026-12-01T10:00:00.000Z',
      customFields: { points: 3, team: 'core', urgent: true },
    };
    const res = await as(h.app, org.liveKey).post('/v1/tasks', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
  });

  it.each([
    [{ projectId: 'prj_x' }, 'title'],
    [{ title: 'x' }, 'projectId'],
    [{ title: '', projectId: 'p' }, 'title'],
    [{ title: 'x'.repeat(501), projectId: 'p' }, 'title'],
    [{ title: 7, projectId: 'p' }, 'title'],
    [{ title: 'x', projectId: 'p', status: 'blocked' }, 'status'],
    [{ title: 'x', projectId: 'p', priority: 'urgent' }, 'priority'],
    [{ title: 'x', projectId: 'p', dueDate: 'tomorrow' }, 'dueDate'],
    [{ title: 'x', projectId: 'p', customFields: 'nope' }, 'customFields'],
    [{ title: 'x', projectId: 'p', customFields: { nested: { a: 1 } } }, 'customFields.nested'],
    [{ title: 'x', projectId: 'p', titel: 'typo' }, 'titel'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).post('/v1/tasks', body), 400, 'invalid_request', param);
  });

  it('refuses a project of another organization, an unknown assignee, and an archived project', async () => {
    const foreignProject = (await as(h.app, otherOrg.liveKey).post('/v1/projects', { name: 'Theirs' })).body.id;
    expectError(await as(h.app, org.liveKey).post('/v1/tasks', { title: 'x', projectId: foreignProject }), 400, 'invalid_request', 'projectId');
    expectError(await as(h.app, org.liveKey).post('/v1/tasks', { title: 'x', projectId, assigneeId: otherOrg.user.id }), 400, 'invalid_request', 'assigneeId');
    const archived = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Old' })).body.id;
    await as(h.app, org.liveKey).patch(`/v1/projects/${archived}`, { archived: true }).expect(200);
    expectError(await as(h.app, org.liveKey).post('/v1/tasks', { title: 'x', projectId: archived }), 400, 'invalid_request', 'projectId');
  });

  it('keeps test-mode data apart: a test key cannot use a live project', async () => {
    expectError(await as(h.app, org.testKey).post('/v1/tasks', { title: 'x', projectId }), 400, 'invalid_request', 'projectId');
  });
});

describe('GET /v1/tasks', () => {
  let listProject: string;
  const ids: string[] = [];

  beforeAll(async () => {
    listProject = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'List' })).body.id;
    const member = await addMember(h.db, org);
    const specs = [
      { status: 'todo', priority: 'low' },
      { status: 'done', priority: 'high', assigneeId: member.userId },
      { status: 'in_progress', priority: 'high' },
    ];
    for (const [i, spec] of specs.entries()) {
      ids.push((await as(h.app, org.liveKey).post('/v1/tasks', { title: `T${i}`, projectId: listProject, ...spec })).body.id);
    }
  });

  itEnforcesAccess(ctx, () => ({ method: 'get', path: '/v1/tasks', permission: 'tasks:read' }), { namesResource: false });

  it('lists the tasks of a project, newest first, in the pagination envelope', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/tasks?projectId=${listProject}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([...ids].reverse());
    expect(res.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, hasMore: false, nextCursor: null });
  });

  it('filters by status, priority and assignee, and pages with limit and offset', async () => {
    const base = `/v1/tasks?projectId=${listProject}`;
    expect((await as(h.app, org.liveKey).get(`${base}&status=done`)).body.data.map((t: { id: string }) => t.id)).toEqual([ids[1]]);
    expect((await as(h.app, org.liveKey).get(`${base}&priority=high`)).body.pagination.total).toBe(2);
    const assignee = (await as(h.app, org.liveKey).get(`/v1/tasks/${ids[1]}`)).body.assigneeId;
    expect((await as(h.app, org.liveKey).get(`${base}&assigneeId=${assignee}`)).body.data.map((t: { id: string }) => t.id)).toEqual([ids[1]]);
    const page = await as(h.app, org.liveKey).get(`${base}&limit=1&offset=1`);
    expect(page.body.data.map((t: { id: string }) => t.id)).toEqual([ids[1]]);
    expect(page.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true, nextCursor: expect.any(String) });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['status=blocked', 'status'],
    ['priority=urgent', 'priority'],
    ['unknown=1', 'unknown'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, org.liveKey).get(`/v1/tasks?${query}`), 400, 'invalid_request', param);
  });

  it("never shows another organization's or the other mode's tasks", async () => {
    expect((await as(h.app, otherOrg.liveKey).get(`/v1/tasks?projectId=${listProject}`)).body.pagination.total).toBe(0);
    expect((await as(h.app, org.testKey).get(`/v1/tasks?projectId=${listProject}`)).body.pagination.total).toBe(0);
  });
});

describe('GET /v1/tasks/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'get', path: `/v1/tasks/${taskId}`, permission: 'tasks:read' }), { namesResource: true });

  it('returns the task, and 404 for an unknown id', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/tasks/${taskId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: taskId, title: 'First' });
    expectError(await as(h.app, org.liveKey).get('/v1/tasks/tsk_missing'), 404, 'not_found', 'taskId');
  });
});

describe('PATCH /v1/tasks/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'patch', path: `/v1/tasks/${taskId}`, permission: 'tasks:write', body: { title: 'Renamed' } }), {
    namesResource: true,
  });

  it('updates every patchable field, and null clears the optional ones', async () => {
    const member = await addMember(h.db, org);
    const id = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Patch me', projectId, customFields: { a: 1 } })).body.id;
    const patch = {
      title: 'Patched',
      description: 'Now described',
      status: 'in_progress',
      priority: 'low',
      assigneeId: member.userId,
      dueDate: '2027-01-01T00:00:00.000Z',
      customFields: { b: 'two' },
    };
    const res = await as(h.app, org.liveKey).patch(`/v1/tasks/${id}`, patch);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(patch);
    const cleared = await as(h.app, org.liveKey).patch(`/v1/tasks/${id}`, { description: null, assigneeId: null, dueDate: null, customFields: null });
    expect(cleared.body).toMatchObject({ description: null, assigneeId: null, dueDate: null, customFields: {} });
  });

  it('allows every status move', async () => {
    const id = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Mover', projectId })).body.id;
    for (const status of ['done', 'todo', 'in_progress', 'done', 'in_progress', 'todo']) {
      expect((await as(h.app, org.liveKey).patch(`/v1/tasks/${id}`, { status })).body.status).toBe(status);
    }
  });

  it.each([
    [{ title: '' }, 'title'],
    [{ status: 'archived' }, 'status'],
    [{ priority: 1 }, 'priority'],
    [{ projectId: 'prj_other' }, 'projectId'],
    [{ creatorId: 'usr_x' }, 'creatorId'],
    [{ dueDate: '31/12/2026' }, 'dueDate'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).patch(`/v1/tasks/${taskId}`, body), 400, 'invalid_request', param);
  });

  it('refuses an assignee who is not a member', async () => {
    expectError(await as(h.app, org.liveKey).patch(`/v1/tasks/${taskId}`, { assigneeId: 'usr_nobody' }), 400, 'invalid_request', 'assigneeId');
  });
});

describe('DELETE /v1/tasks/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'delete', path: `/v1/tasks/${taskId}`, permission: 'tasks:write' }), { namesResource: true });

  it('deletes permanently with 204 and no body', async () => {
    const id = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Doomed', projectId })).body.id;
    const res = await as(h.app, org.liveKey).delete(`/v1/tasks/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await as(h.app, org.liveKey).get(`/v1/tasks/${id}`), 404, 'not_found');
    expectError(await as(h.app, org.liveKey).delete(`/v1/tasks/${id}`), 404, 'not_found');
  });
});

describe('roles', () => {
  it('lets a guest read tasks but not write them, whatever the key grants', async () => {
    const guest = await addMember(h.db, org, { role: 'guest' });
    expect((await as(h.app, guest.key).get(`/v1/tasks/${taskId}`)).status).toBe(200);
    expectError(await as(h.app, guest.key).post('/v1/tasks', { title: 'x', projectId }), 403, 'forbidden');
  });

  it('limits a key to its own permissions', async () => {
    const readOnly = await keyWith(h.db, org, ['tasks:read']);
    expect((await as(h.app, readOnly).get('/v1/tasks')).status).toBe(200);
    expectError(await as(h.app, readOnly).patch(`/v1/tasks/${taskId}`, { title: 'x' }), 403, 'forbidden');
  });
});
