import { itEnforcesAccess } from '@test-support/access-checks';
import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

/* Relations between tasks (docs/decisions.md#relations): both sides, no self or duplicates, gone with either task. */

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;
let otherProjectId: string;
let anchor: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  projectId = (await api().post('/v1/projects', { name: 'Release' })).body.id;
  otherProjectId = (await api().post('/v1/projects', { name: 'Platform' })).body.id;
  anchor = await newTask('Anchor');
});
afterAll(() => h.close());

const api = (key = org.liveKey) => as(h.app, key);
const ctx = () => ({ harness: h, org, otherOrg });
async function newTask(title: string, inProject = projectId): Promise<string> {
  const res = await api().post('/v1/tasks', { projectId: inProject, title });
  expect(res.status).toBe(201);
  return res.body.id;
}
const relate = (from: string, type: string, to: string, key = org.liveKey) => api(key).post(`/v1/tasks/${from}/relations`, { type, taskId: to });
const sides = async (taskId: string) =>
  (await api().get(`/v1/tasks/${taskId}/relations`)).body.data.map(
    (relation: { type: string; task: { id: string } }) => `${relation.type} ${relation.task.id}`,
  );
const eventsOf = (type: string) => h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id, type }, orderBy: { id: 'asc' } });

describe('relations', () => {
  itEnforcesAccess(
    ctx,
    () => ({ method: 'post', path: `/v1/tasks/${anchor}/relations`, permission: 'tasks:write', body: { type: 'blocks', taskId: anchor } }),
    {
      namesResource: true,
    },
  );
  itEnforcesAccess(ctx, () => ({ method: 'get', path: `/v1/tasks/${anchor}/relations`, permission: 'tasks:read' }), { namesResource: true });

  it('relates two tasks of any projects and lists each side with its own name', async () => {
    const release = await newTask('Release');
    const migration = await newTask('Migration', otherProjectId);
    const copy = await newTask('Copy');
    const note = await newTask('Note');

    const created = await relate(migration, 'blocks', release);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^rel_[0-9A-Z]{26}$/),
      type: 'blocks',
      task: { id: release, title: 'Release', status: 'todo', projectId },
      createdAt: expect.any(String),
    });
    await relate(copy, 'duplicates', release);
    await relate(release, 'relates_to', note);

    expect(await sides(release)).toEqual([`blocked_by ${migration}`, `duplicated_by ${copy}`, `relates_to ${note}`]);
    expect(await sides(migration)).toEqual([`blocks ${release}`]);
    expect(await sides(copy)).toEqual([`duplicates ${release}`]);
    expect(await sides(note)).toEqual([`relates_to ${release}`]);
    expect((await api().get(`/v1/tasks/${release}/relations?limit=2`)).body.pagination).toMatchObject({ total: 3, hasMore: true });

    const [event] = (await eventsOf('relation.created')).filter((row) => (row.data as { id: string }).id === created.body.id);
    // The relation as created, with the project of its first task.
    expect(event).toMatchObject({
      projectId: otherProjectId,
      data: { id: created.body.id, type: 'blocks', taskId: migration, relatedTaskId: release, projectId: otherProjectId, createdAt: created.body.createdAt },
    });
  });

  it('refuses a task related to itself (400), an unknown or foreign task (400, param taskId) and a relation twice (409)', async () => {
    const [a, b] = [await newTask('A'), await newTask('B')];
    expectError(await relate(a, 'blocks', a), 400, 'invalid_request', 'taskId');
    const foreignProject = (await api(otherOrg.liveKey).post('/v1/projects', { name: 'Theirs' })).body.id;
    const foreign = (await api(otherOrg.liveKey).post('/v1/tasks', { projectId: foreignProject, title: 'Theirs' })).body.id;
    const testProject = (await api(org.testKey).post('/v1/projects', { name: 'Sandbox' })).body.id;
    const testTask = (await api(org.testKey).post('/v1/tasks', { projectId: testProject, title: 'Sandbox' })).body.id;
    for (const other of [foreign, testTask, 'tsk_unknown']) expectError(await relate(a, 'blocks', other), 400, 'invalid_request', 'taskId');
    expectError(await relate(a, 'causes', b), 400, 'invalid_request', 'type');
    expectError(await relate(foreign, 'blocks', a, otherOrg.liveKey), 400, 'invalid_request', 'taskId');

    expect((await relate(a, 'blocks', b)).status).toBe(201);
    expectError(await relate(a, 'blocks', b), 409, 'conflict', 'taskId');
    // blocks has a direction: the other way round is another relation.
    expect((await relate(b, 'blocks', a)).status).toBe(201);
    expect((await relate(a, 'relates_to', b)).status).toBe(201);
    expectError(await relate(b, 'relates_to', a), 409, 'conflict', 'taskId');
    // Two at once: one is made.
    const [c, d] = [await newTask('C'), await newTask('D')];
    const answers = await Promise.all([relate(c, 'relates_to', d), relate(d, 'relates_to', c)]);
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409]);
  });

  it('deletes a relation from either side, with relation.deleted; foreign keys and tasks find nothing', async () => {
    const [a, b, c] = [await newTask('A'), await newTask('B'), await newTask('C')];
    const relation = (await relate(a, 'blocks', b)).body.id;
    expectError(await api().delete(`/v1/tasks/${c}/relations/${relation}`), 404, 'not_found', 'relationId');
    expectError(await api(otherOrg.liveKey).delete(`/v1/tasks/${b}/relations/${relation}`), 404, 'not_found', 'taskId');
    expectError(await api(otherOrg.liveKey).get(`/v1/tasks/${a}/relations`), 404, 'not_found', 'taskId');

    expect((await api().delete(`/v1/tasks/${b}/relations/${relation}`)).status).toBe(204);
    expect(await sides(a)).toEqual([]);
    expectError(await api().delete(`/v1/tasks/${a}/relations/${relation}`), 404, 'not_found', 'relationId');
    const deleted = (await eventsOf('relation.deleted')).filter((row) => (row.data as { id: string }).id === relation);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.data).toMatchObject({ type: 'blocks', taskId: a, relatedTaskId: b, projectId });
  });

  it('goes with either of its tasks, without an event', async () => {
    const [a, b, c] = [await newTask('A'), await newTask('B'), await newTask('C')];
    await relate(a, 'blocks', b);
    await relate(c, 'duplicates', a);
    const deletedBefore = (await eventsOf('relation.deleted')).length;
    expect((await api().delete(`/v1/tasks/${a}`)).status).toBe(204);
    expect(await sides(b)).toEqual([]);
    expect(await sides(c)).toEqual([]);
    expect(await h.db.taskRelation.count({ where: { OR: [{ fromTaskId: a }, { toTaskId: a }] } })).toBe(0);
    expect(await eventsOf('relation.deleted')).toHaveLength(deletedBefore);
  });

  it('deletes a relation and its first task at the same moment without failing either', async () => {
    for (let round = 0; round < 8; round++) {
      const [a, b] = [await newTask('A'), await newTask('B')];
      const relation = (await relate(a, 'blocks', b)).body.id;
      const [removed, deleted] = await Promise.all([api().delete(`/v1/tasks/${b}/relations/${relation}`), api().delete(`/v1/tasks/${a}`)]);
      expect(deleted.status).toBe(204);
      // Either the relation went first (204) or with its task (404).
      expect([204, 404]).toContain(removed.status);
      expect(await h.db.taskRelation.count({ where: { id: relation } })).toBe(0);
    }
  });
});
