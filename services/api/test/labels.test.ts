import { itEnforcesAccess } from '@test-support/access-checks';
import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

/* Labels (docs/decisions.md#labels): the resource, labelIds on tasks, the labelId filter and deletion. */

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;
let labelId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  projectId = (await api().post('/v1/projects', { name: 'Labelled' })).body.id;
  labelId = (await api().post('/v1/labels', { name: 'Existing' })).body.id;
});
afterAll(() => h.close());

const api = (key = org.liveKey) => as(h.app, key);
const ctx = () => ({ harness: h, org, otherOrg });
let named = 0;
const newLabel = async (fields: object = {}) => {
  const res = await api().post('/v1/labels', { name: `label ${++named}`, ...fields });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const newTask = async (fields: object = {}) => {
  const res = await api().post('/v1/tasks', { projectId, title: 'Labelled task', ...fields });
  expect(res.status).toBe(201);
  return res.body as { id: string; labelIds: string[] };
};
const eventsOf = (type: string) => h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id, type }, orderBy: { id: 'asc' } });

describe('the labels resource', () => {
  itEnforcesAccess(ctx, () => ({ method: 'post', path: '/v1/labels', permission: 'projects:write', body: { name: 'x' } }), { namesResource: false });
  itEnforcesAccess(ctx, () => ({ method: 'get', path: `/v1/labels/${labelId}`, permission: 'projects:read' }), { namesResource: true });
  itEnforcesAccess(ctx, () => ({ method: 'patch', path: `/v1/labels/${labelId}`, permission: 'projects:write', body: { color: '#abc' } }), {
    namesResource: true,
  });

  it('creates, reads, changes and lists labels, with their events (no project)', async () => {
    const created = await api().post('/v1/labels', { name: 'Bug', color: '#d73a4a', description: 'Something is wrong' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^lbl_[0-9A-Z]{26}$/),
      name: 'Bug',
      color: '#d73a4a',
      description: 'Something is wrong',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(created.headers.location).toMatch(new RegExp(`/v1/labels/${created.body.id}$`));
    expect((await api().get(`/v1/labels/${created.body.id}`)).body).toEqual(created.body);

    const changed = await api().patch(`/v1/labels/${created.body.id}`, { color: '#b60205', description: null });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Bug', color: '#b60205', description: null });

    const [createdEvent] = (await eventsOf('label.created')).filter((row) => (row.data as { id: string }).id === created.body.id);
    expect(createdEvent).toMatchObject({ projectId: null, data: created.body });
    const [updated] = (await eventsOf('label.updated')).filter((row) => (row.data as { id: string }).id === created.body.id);
    expect(updated!.data).toEqual({ ...changed.body, previousAttributes: { color: '#d73a4a', description: 'Something is wrong' } });

    const found = await api().get('/v1/labels?q=bU');
    expect(found.body.data.map((label: { id: string }) => label.id)).toEqual([created.body.id]);
    expect(found.body.pagination.total).toBe(1);
  });

  it('refuses a second label of the same name whatever its case (409, param name), in create and rename', async () => {
    await newLabel({ name: 'Frontend' });
    expectError(await api().post('/v1/labels', { name: 'FRONTEND' }), 409, 'conflict', 'name');
    const other = await newLabel({ name: 'Backend' });
    expectError(await api().patch(`/v1/labels/${other}`, { name: 'frontend' }), 409, 'conflict', 'name');
    // The same name is free in another organization and in the test data.
    expect((await api(otherOrg.liveKey).post('/v1/labels', { name: 'Frontend' })).status).toBe(201);
    expect((await api(org.testKey).post('/v1/labels', { name: 'frontend' })).status).toBe(201);
  });

  it('validates names, colors and descriptions (400 naming the field)', async () => {
    expectError(await api().post('/v1/labels', {}), 400, 'invalid_request', 'name');
    expectError(await api().post('/v1/labels', { name: 'x'.repeat(51) }), 400, 'invalid_request', 'name');
    expectError(await api().post('/v1/labels', { name: ' ' }), 400, 'invalid_request', 'name');
    expectError(await api().post('/v1/labels', { name: 'c', color: 'red' }), 400, 'invalid_request', 'color');
    expectError(await api().post('/v1/labels', { name: 'd', description: 'x'.repeat(501) }), 400, 'invalid_request', 'description');
    expectError(await api().post('/v1/labels', { name: 'e', project: 'typo' }), 400, 'invalid_request', 'project');
  });

  it("never shows another organization's labels", async () => {
    const foreign = (await api(otherOrg.liveKey).post('/v1/labels', { name: 'Theirs' })).body.id;
    expectError(await api().get(`/v1/labels/${foreign}`), 404, 'not_found', 'labelId');
    expectError(await api().delete(`/v1/labels/${foreign}`), 404, 'not_found', 'labelId');
    const listed = await api().get('/v1/labels?limit=100');
    expect(listed.body.data.map((label: { id: string }) => label.id)).not.toContain(foreign);
  });
});

describe('labels on tasks', () => {
  it('sets labelIds on create (in id order) and replaces them on PATCH, with previousAttributes', async () => {
    const [a, b] = [await newLabel(), await newLabel()];
    const plain = await newTask();
    expect(plain.labelIds).toEqual([]);
    const task = await newTask({ labelIds: [b, a] });
    expect(task.labelIds).toEqual([a, b]);
    expect((await api().get(`/v1/tasks/${task.id}`)).body.labelIds).toEqual([a, b]);

    const patched = await api().patch(`/v1/tasks/${task.id}`, { labelIds: [b] });
    expect(patched.body.labelIds).toEqual([b]);
    const updated = (await eventsOf('task.updated')).find((row) => (row.data as { id: string }).id === task.id);
    expect(updated!.data).toMatchObject({ labelIds: [b], previousAttributes: { labelIds: [a, b] } });
    expect((await api().patch(`/v1/tasks/${task.id}`, { labelIds: [] })).body.labelIds).toEqual([]);
  });

  it('refuses unknown, foreign, test-mode, repeated and more than 20 labels (400, param labelIds)', async () => {
    const foreign = (await api(otherOrg.liveKey).post('/v1/labels', { name: 'Foreign' })).body.id;
    const testLabel = (await api(org.testKey).post('/v1/labels', { name: 'Sandbox' })).body.id;
    const task = await newTask();
    for (const labelIds of [['lbl_unknown'], [foreign], [testLabel], [labelId, labelId]]) {
      expectError(await api().post('/v1/tasks', { projectId, title: 'x', labelIds }), 400, 'invalid_request', 'labelIds');
      expectError(await api().patch(`/v1/tasks/${task.id}`, { labelIds }), 400, 'invalid_request', 'labelIds');
    }
    const many = await Promise.all(Array.from({ length: 21 }, () => newLabel()));
    expect((await api().post('/v1/tasks', { projectId, title: 'Twenty', labelIds: many.slice(0, 20) })).status).toBe(201);
    expectError(await api().post('/v1/tasks', { projectId, title: 'x', labelIds: many }), 400, 'invalid_request', 'labelIds');
    expectError(await api().patch(`/v1/tasks/${task.id}`, { labelIds: many }), 400, 'invalid_request', 'labelIds');
    expect((await api().get(`/v1/tasks/${task.id}`)).body.labelIds).toEqual([]);
  });

  it('lists the tasks carrying any of the labels given (labelId=a,b)', async () => {
    const [a, b, c] = [await newLabel(), await newLabel(), await newLabel()];
    const onA = await newTask({ labelIds: [a] });
    const onAB = await newTask({ labelIds: [a, b] });
    const onB = await newTask({ labelIds: [b] });
    await newTask({ labelIds: [c] });
    const ids = async (query: string) => (await api().get(`/v1/tasks?${query}`)).body.data.map((task: { id: string }) => task.id);
    expect(await ids(`labelId=${a}`)).toEqual([onAB.id, onA.id]);
    expect(await ids(`labelId=${a},${b}`)).toEqual([onB.id, onAB.id, onA.id]);
    expect((await api().get(`/v1/tasks?labelId=${a},${b}&limit=1`)).body.pagination.total).toBe(3);
    expect(await ids(`labelId=${b}&projectId=${projectId}&sort=createdAt`)).toEqual([onAB.id, onB.id]);
    // Another organization naming the label finds none of these tasks.
    expect((await api(otherOrg.liveKey).get(`/v1/tasks?labelId=${a}`)).body.data).toEqual([]);
  });

  it('takes a deleted label off every task, with one label.deleted and no task.updated', async () => {
    const [gone, kept] = [await newLabel(), await newLabel()];
    const tasks = await Promise.all([newTask({ labelIds: [gone, kept] }), newTask({ labelIds: [gone] }), newTask({ labelIds: [kept] })]);
    const updatesBefore = (await eventsOf('task.updated')).length;

    expect((await api().delete(`/v1/labels/${gone}`)).status).toBe(204);
    expectError(await api().get(`/v1/labels/${gone}`), 404, 'not_found', 'labelId');
    const after = await Promise.all(tasks.map(async (task) => (await api().get(`/v1/tasks/${task.id}`)).body.labelIds));
    expect(after).toEqual([[kept], [], [kept]]);
    expect((await api().get(`/v1/tasks?labelId=${gone}`)).body.data).toEqual([]);

    const deleted = (await eventsOf('label.deleted')).filter((row) => (row.data as { id: string }).id === gone);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.projectId).toBeNull();
    expect(await eventsOf('task.updated')).toHaveLength(updatesBefore);
  });

  it('never leaves a deleted label on a task labelled at the same moment', async () => {
    for (let round = 0; round < 5; round++) {
      const label = await newLabel();
      const task = await newTask();
      const [patched, deleted] = await Promise.all([api().patch(`/v1/tasks/${task.id}`, { labelIds: [label] }), api().delete(`/v1/labels/${label}`)]);
      expect(deleted.status).toBe(204);
      // Either the label was put on first (and then taken off) or it was gone already (400).
      expect([200, 400]).toContain(patched.status);
      expect((await api().get(`/v1/tasks/${task.id}`)).body.labelIds).toEqual([]);
    }
  });
});
