import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

/* Sub-tasks (docs/decisions.md#sub-tasks): parents within a project, no cycles, 5 levels, exact counts. */

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  projectId = await newProject();
});
afterAll(() => h.close());

const api = (key = org.liveKey) => as(h.app, key);
async function newProject(): Promise<string> {
  return (await api().post('/v1/projects', { name: 'Trees' })).body.id;
}
async function newTask(fields: object = {}, inProject = projectId): Promise<string> {
  const res = await api().post('/v1/tasks', { projectId: inProject, title: 'Node', ...fields });
  expect(res.status).toBe(201);
  return res.body.id;
}
/** A chain of `levels` tasks, each the child of the one before; the top first. */
async function chain(levels: number): Promise<string[]> {
  const ids = [await newTask()];
  while (ids.length < levels) ids.push(await newTask({ parentId: ids.at(-1) }));
  return ids;
}
const subtasksOf = async (id: string) => (await api().get(`/v1/tasks/${id}`)).body.subtasks;
const parentOf = async (id: string) => (await api().get(`/v1/tasks/${id}`)).body.parentId;

/** Every parent's counts, as the counts say and as its children are. */
async function countsAndChildren() {
  const counted = await h.db.$queryRaw<{ parentId: string; total: number; done: number }[]>`
    SELECT "parentId", sum(total)::int AS total, sum(done)::int AS done FROM "SubtaskCount" GROUP BY "parentId" HAVING sum(total) <> 0 ORDER BY "parentId"`;
  const actual = await h.db.$queryRaw<{ parentId: string; total: number; done: number }[]>`
    SELECT "parentId", count(*)::int AS total, (count(*) FILTER (WHERE status = 'done'))::int AS done FROM "Task" WHERE "parentId" IS NOT NULL GROUP BY "parentId" ORDER BY "parentId"`;
  return { counted, actual };
}

describe('parents', () => {
  it('nests a task on create and by PATCH, counting children and done children, and detaches with null', async () => {
    const parent = await newTask();
    const created = await api().post('/v1/tasks', { projectId, title: 'Child', parentId: parent, status: 'done' });
    expect(created.body).toMatchObject({ parentId: parent, subtasks: { total: 0, done: 0 } });
    const other = await newTask();
    const moved = await api().patch(`/v1/tasks/${other}`, { parentId: parent });
    expect(moved.body.parentId).toBe(parent);
    expect(await subtasksOf(parent)).toEqual({ total: 2, done: 1 });

    await api().patch(`/v1/tasks/${other}`, { status: 'done' });
    expect(await subtasksOf(parent)).toEqual({ total: 2, done: 2 });
    const detached = await api().patch(`/v1/tasks/${created.body.id}`, { parentId: null });
    expect(detached.body.parentId).toBeNull();
    expect(await subtasksOf(parent)).toEqual({ total: 1, done: 1 });
    const updated = await h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id, type: 'task.updated' }, orderBy: { id: 'asc' } });
    expect(updated.at(-1)!.data).toMatchObject({ id: created.body.id, parentId: null, previousAttributes: { parentId: parent } });
    // The listed records carry the counts too.
    const listed = (await api().get(`/v1/tasks?projectId=${projectId}&limit=100`)).body.data.find((task: { id: string }) => task.id === parent);
    expect(listed.subtasks).toEqual({ total: 1, done: 1 });
  });

  it('refuses a parent of another project, organization or mode, or unknown (400, param parentId)', async () => {
    const elsewhere = await newTask({}, await newProject());
    const foreignProject = (await api(otherOrg.liveKey).post('/v1/projects', { name: 'Theirs' })).body.id;
    const foreign = (await api(otherOrg.liveKey).post('/v1/tasks', { projectId: foreignProject, title: 'Theirs' })).body.id;
    const testProject = (await api(org.testKey).post('/v1/projects', { name: 'Sandbox' })).body.id;
    const testTask = (await api(org.testKey).post('/v1/tasks', { projectId: testProject, title: 'Sandbox' })).body.id;
    const task = await newTask();
    for (const parentId of [elsewhere, foreign, testTask, 'tsk_unknown']) {
      expectError(await api().post('/v1/tasks', { projectId, title: 'x', parentId }), 400, 'invalid_request', 'parentId');
      expectError(await api().patch(`/v1/tasks/${task}`, { parentId }), 400, 'invalid_request', 'parentId');
    }
    // Nor does the other organization see this project's tree through its own tasks.
    expectError(await api(otherOrg.liveKey).patch(`/v1/tasks/${foreign}`, { parentId: task }), 400, 'invalid_request', 'parentId');
    expect((await api(otherOrg.liveKey).get(`/v1/tasks?parentId=${task}`)).body.data).toEqual([]);
  });

  it('refuses a task as its own ancestor (400, param parentId)', async () => {
    const [top, middle, bottom] = (await chain(3)) as [string, string, string];
    expectError(await api().patch(`/v1/tasks/${top}`, { parentId: top }), 400, 'invalid_request', 'parentId');
    expectError(await api().patch(`/v1/tasks/${top}`, { parentId: bottom }), 400, 'invalid_request', 'parentId');
    expectError(await api().patch(`/v1/tasks/${middle}`, { parentId: bottom }), 400, 'invalid_request', 'parentId');
    expect(await parentOf(top)).toBeNull();
  });

  it('stops nesting at 5 levels, on create and when a subtree moves (400, param parentId)', async () => {
    const five = await chain(5);
    expectError(await api().post('/v1/tasks', { projectId, title: 'Sixth', parentId: five[4] }), 400, 'invalid_request', 'parentId');
    const [subtreeTop] = (await chain(2)) as [string];
    // Under the third level a two-level subtree reaches the fifth: allowed; under the fourth, the sixth.
    expectError(await api().patch(`/v1/tasks/${subtreeTop}`, { parentId: five[3] }), 400, 'invalid_request', 'parentId');
    expect((await api().patch(`/v1/tasks/${subtreeTop}`, { parentId: five[2] })).status).toBe(200);
  });

  it("lists a task's children (parentId=) and the tasks without a parent (topLevel=true)", async () => {
    const project = await newProject();
    const top = await newTask({}, project);
    const children = [await newTask({ parentId: top }, project), await newTask({ parentId: top }, project)];
    const grandchild = await newTask({ parentId: children[0] }, project);
    const ids = async (query: string) => (await api().get(`/v1/tasks?${query}`)).body.data.map((task: { id: string }) => task.id);
    expect(await ids(`parentId=${top}`)).toEqual([...children].reverse());
    expect(await ids(`parentId=${children[0]}`)).toEqual([grandchild]);
    expect(await ids(`projectId=${project}&topLevel=true`)).toEqual([top]);
    expect((await api().get(`/v1/tasks?projectId=${project}&topLevel=false`)).body.pagination.total).toBe(4);
    expectError(await api().get('/v1/tasks?topLevel=maybe'), 400, 'invalid_request', 'topLevel');
  });

  it('detaches the children of a deleted task, each with task.updated', async () => {
    const parent = await newTask();
    const children = [await newTask({ parentId: parent }), await newTask({ parentId: parent })];
    const grandchild = await newTask({ parentId: children[0] });
    expect((await api().delete(`/v1/tasks/${parent}`)).status).toBe(204);
    expect(await Promise.all(children.map(parentOf))).toEqual([null, null]);
    expect(await parentOf(grandchild)).toBe(children[0]);
    const updated = await h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id, type: 'task.updated' } });
    const detached = updated.filter((row) => (row.data as { previousAttributes: { parentId?: string } }).previousAttributes.parentId === parent);
    expect(detached.map((row) => (row.data as { id: string }).id).sort()).toEqual([...children].sort());
    expect(detached.map((row) => row.projectId)).toEqual([projectId, projectId]);
  });

  it('deletes a project holding trees, and leaves no counts behind', async () => {
    const project = await newProject();
    const top = await newTask({}, project);
    const child = await newTask({ parentId: top }, project);
    await newTask({ parentId: child }, project);
    expect((await api().delete(`/v1/projects/${project}`)).status).toBe(204);
    expect(await h.db.subtaskCount.count({ where: { parentId: { in: [top, child] } } })).toBe(0);
  });
});

describe('under concurrent changes', () => {
  it('lets at most one of two crossing moves succeed: no cycle is ever made', async () => {
    for (let round = 0; round < 8; round++) {
      const [a, b] = [await newTask(), await newTask()];
      const answers = await Promise.all([api().patch(`/v1/tasks/${a}`, { parentId: b }), api().patch(`/v1/tasks/${b}`, { parentId: a })]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
      expect(answers.find((res) => res.status === 400)!.body.error.param).toBe('parentId');
      const parents = [await parentOf(a), await parentOf(b)];
      expect(parents.filter((parent) => parent !== null)).toHaveLength(1);
    }
  });

  it('keeps nesting within 5 levels when two moves would each fit alone', async () => {
    for (let round = 0; round < 4; round++) {
      const upper = await chain(3);
      const lower = await chain(2);
      const middle = await newTask();
      // upper[2] at level 3 takes `middle` (level 4) while `middle` takes lower (levels 5-6 together).
      const answers = await Promise.all([
        api().patch(`/v1/tasks/${middle}`, { parentId: upper[2] }),
        api().patch(`/v1/tasks/${lower[0]}`, { parentId: middle }),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
    }
  });

  it('keeps the counts exact under concurrent status changes, moves and deletions', async () => {
    const parents = [await newTask(), await newTask()];
    const children = await Promise.all(Array.from({ length: 24 }, (_, i) => newTask({ parentId: parents[i % 2] })));
    await Promise.all(
      children.map((child, i) => {
        if (i % 6 === 5) return api().delete(`/v1/tasks/${child}`);
        if (i % 6 === 4) return api().patch(`/v1/tasks/${child}`, { parentId: parents[(i + 1) % 2], status: 'done' });
        return api().patch(`/v1/tasks/${child}`, { status: i % 2 ? 'done' : 'in_progress' });
      }),
    );
    await Promise.all(children.slice(0, 8).map((child) => api().patch(`/v1/tasks/${child}`, { status: 'done' })));
    const { counted, actual } = await countsAndChildren();
    expect(counted).toEqual(actual);
    for (const parent of parents) {
      const rows = await h.db.task.findMany({ where: { parentId: parent } });
      expect(await subtasksOf(parent)).toEqual({ total: rows.length, done: rows.filter((row) => row.status === 'done').length });
    }
  });
});
