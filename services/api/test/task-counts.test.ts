import { Prisma } from '@worktrack/db';
import { addMember, as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { seedTasks } from '@test-support/seed-tasks';

let h: Harness;
let org: TestOrg;
let members: string[];

beforeAll(async () => {
  h = createHarness();
  org = await createOrg(h.db);
  members = [org.user.id, ...(await Promise.all([addMember(h.db, org), addMember(h.db, org)])).map((m) => m.userId)];
});
afterAll(() => h.close());

const api = () => as(h.app, org.liveKey);

async function newProject(name: string): Promise<string> {
  return (await api().post('/v1/projects', { name })).body.id;
}

type Group = { projectId: string; status: string; priority: string; assigneeId: string; topLevel: boolean; n: number };
type LabelGroup = { projectId: string; labelId: string; n: number };

/** Every project's tasks per status, priority, assignee and parent or none, and per label, counted from the tasks and from the counts. */
async function expectCountsExact(): Promise<void> {
  const order = Prisma.sql`ORDER BY "projectId", status, priority, "assigneeId", "topLevel"`;
  const counted = await h.db.$queryRaw<Group[]>`
    SELECT "projectId", status::text, priority::text, "assigneeId", "topLevel", sum(count)::int AS n FROM "TaskCount"
    GROUP BY "projectId", status, priority, "assigneeId", "topLevel" HAVING sum(count) <> 0 ${order}`;
  const actual = await h.db.$queryRaw<Group[]>`
    SELECT "projectId", status::text, priority::text, coalesce("assigneeId", '') AS "assigneeId", "parentId" IS NULL AS "topLevel", count(*)::int AS n FROM "Task"
    GROUP BY "projectId", status, priority, coalesce("assigneeId", ''), "parentId" IS NULL ${order}`;
  expect(counted).toEqual(actual);
  const countedLabels = await h.db.$queryRaw<LabelGroup[]>`
    SELECT "projectId", "labelId", sum(count)::int AS n FROM "TaskLabelCount" GROUP BY "projectId", "labelId" HAVING sum(count) <> 0 ORDER BY "projectId", "labelId"`;
  const actualLabels = await h.db.$queryRaw<LabelGroup[]>`
    SELECT "projectId", label AS "labelId", count(*)::int AS n FROM "Task" CROSS JOIN LATERAL unnest("labelIds") AS label
    GROUP BY "projectId", label ORDER BY "projectId", label`;
  expect(countedLabels).toEqual(actualLabels);
}

async function total(query: string): Promise<number> {
  const res = await api().get(`/v1/tasks?${query}&limit=1`);
  expect(res.status).toBe(200);
  return res.body.pagination.total;
}

describe('task counts kept by the database in the statement that writes the tasks', () => {
  it('follow tasks created, changed and deleted through the API', async () => {
    const projectId = await newProject('Counted');
    const created = [];
    for (let i = 0; i < 12; i++) {
      const body = { projectId, title: `Task ${i}`, priority: ['low', 'medium', 'high'][i % 3], ...(i % 4 ? { assigneeId: members[i % 3] } : {}) };
      created.push((await api().post('/v1/tasks', body)).body.id as string);
    }
    await expectCountsExact();
    expect(await total(`projectId=${projectId}`)).toBe(12);

    await api().patch(`/v1/tasks/${created[0]}`, { status: 'done' });
    await api().patch(`/v1/tasks/${created[1]}`, { status: 'in_progress', priority: 'high' });
    await api().patch(`/v1/tasks/${created[2]}`, { assigneeId: null });
    await api().patch(`/v1/tasks/${created[3]}`, { assigneeId: members[2] });
    await api().patch(`/v1/tasks/${created[4]}`, { title: 'Renamed only' });
    await api().delete(`/v1/tasks/${created[5]}`);
    await expectCountsExact();

    expect(await total(`projectId=${projectId}`)).toBe(11);
    expect(await total(`projectId=${projectId}&status=done`)).toBe(1);
    expect(await total(`projectId=${projectId}&status=done,in_progress`)).toBe(2);
    expect(await total(`projectId=${projectId}&priority=high`)).toBe(await h.db.task.count({ where: { projectId, priority: 'high' } }));
    const unassigned = await h.db.task.count({ where: { projectId, assigneeId: null } });
    expect(await total(`projectId=${projectId}&assigneeId=none`)).toBe(unassigned);
    const mine = await h.db.task.count({ where: { projectId, assigneeId: members[2] } });
    expect(await total(`projectId=${projectId}&assigneeId=${members[2]},none`)).toBe(mine + unassigned);
  });

  it('count bulk inserts and leave nothing behind when a project is deleted', async () => {
    const kept = await newProject('Kept');
    const deleted = await newProject('Deleted');
    const seed = { organizationId: org.organization.id, creatorId: org.user.id, assignees: members };
    await seedTasks(h.db, { ...seed, projectId: kept, count: 900 });
    await seedTasks(h.db, { ...seed, projectId: deleted, count: 1_500 });
    await expectCountsExact();
    expect(await total(`projectId=${deleted}`)).toBe(1_500);

    expect((await api().delete(`/v1/projects/${deleted}`)).status).toBe(204);
    await expectCountsExact();
    expect(await h.db.taskCount.count({ where: { projectId: deleted } })).toBe(0);
    expect(await total(`projectId=${kept}`)).toBe(900);
    expect(await total(`projectId=${deleted}`)).toBe(0);
  });

  it('are written once per count a bulk insert touches, not once per task', async () => {
    const projectId = await newProject('Bulk');
    // The table's statistics before and after, in one transaction: what the insert wrote to the counts.
    const written = await h.db.$transaction(async (tx) => {
      const countWrites = async () =>
        (
          await tx.$queryRaw<[{ n: number }]>`
            SELECT (n_tup_ins + n_tup_upd)::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'TaskCount'`
        )[0].n;
      const before = await countWrites();
      await tx.$executeRaw`
        INSERT INTO "Task" (id, "organizationId", mode, "projectId", title, status, priority, "assigneeId", "creatorId", "createdAt", "updatedAt")
        SELECT 'tsk_bulk' || i, ${org.organization.id}, 'live', ${projectId}, 'Bulk', (ARRAY['todo', 'done'])[1 + i % 2]::"TaskStatus",
          'high', CASE WHEN i % 3 = 0 THEN NULL ELSE ${members[0]} END, ${org.user.id}, now(), now()
        FROM generate_series(1, 3000) AS i`;
      return (await countWrites()) - before;
    });
    expect(written).toBe(4);
    expect(await total(`projectId=${projectId}`)).toBe(3_000);
    await expectCountsExact();
  });

  it('stay exact under concurrent writers to one project', async () => {
    const projectId = await newProject('Busy');
    const create = (i: number) => api().post('/v1/tasks', { projectId, title: `Busy ${i}`, status: i % 2 ? 'todo' : 'in_progress' });
    const ids = (await Promise.all(Array.from({ length: 60 }, (_, i) => create(i)))).map((res) => res.body.id as string);
    await Promise.all([
      ...ids.slice(0, 20).map((id, i) => api().patch(`/v1/tasks/${id}`, { status: i % 2 ? 'done' : 'todo', assigneeId: members[i % 3] })),
      ...ids.slice(20, 35).map((id) => api().delete(`/v1/tasks/${id}`)),
      ...Array.from({ length: 25 }, (_, i) => create(100 + i)),
      // Raw writers too, each statement moving many tasks across count rows at once.
      h.db.$executeRaw`UPDATE "Task" SET priority = 'high' WHERE id = ANY(${ids.slice(35, 50)})`,
      h.db.$executeRaw`UPDATE "Task" SET priority = 'low', status = 'done' WHERE id = ANY(${ids.slice(45, 60)})`,
    ]);
    await expectCountsExact();
    expect(await total(`projectId=${projectId}`)).toBe(60 - 15 + 25);
  });

  it('follow labels and parents set, changed and removed, and answer topLevel= and one labelId=', async () => {
    const projectId = await newProject('Labelled');
    const [a, b] = await Promise.all(['Counted A', 'Counted B'].map(async (name) => (await api().post('/v1/labels', { name })).body.id as string));
    const parent = (await api().post('/v1/tasks', { projectId, title: 'Parent', labelIds: [a] })).body.id as string;
    const children = [];
    for (let i = 0; i < 4; i++) {
      children.push((await api().post('/v1/tasks', { projectId, title: `Child ${i}`, parentId: parent, labelIds: i % 2 ? [a, b] : [b] })).body.id as string);
    }
    await expectCountsExact();
    expect(await total(`projectId=${projectId}&topLevel=true`)).toBe(1);
    expect(await total(`projectId=${projectId}&labelId=${b}`)).toBe(4);

    await api().patch(`/v1/tasks/${children[0]}`, { parentId: null, labelIds: [a] });
    await api().patch(`/v1/tasks/${children[1]}`, { status: 'done' });
    await api().delete(`/v1/tasks/${children[2]}`);
    expect((await api().delete(`/v1/labels/${b}`)).status).toBe(204);
    await expectCountsExact();
    expect(await total(`projectId=${projectId}&topLevel=true`)).toBe(2);
    expect(await total(`projectId=${projectId}&topLevel=true&status=todo`)).toBe(2);
    expect(await total(`labelId=${a}`)).toBe(4);
    expect(await total(`projectId=${projectId}&labelId=${b}`)).toBe(0);

    // Deleting the parent detaches its children: top level again.
    await api().delete(`/v1/tasks/${parent}`);
    await expectCountsExact();
    expect(await total(`projectId=${projectId}&topLevel=true`)).toBe(3);
  });

  it('answer the totals of lists they can, and the tasks those they cannot', async () => {
    const projectId = await newProject('Read');
    await api().post('/v1/tasks', { projectId, title: 'Searchable zeppelin' });
    const [label, unused] = await Promise.all(['Read A', 'Read B'].map(async (name) => (await api().post('/v1/labels', { name })).body.id as string));
    await api().post('/v1/tasks', { projectId, title: 'Other', labelIds: [label] });
    // Skew the counts on purpose: a total read from them shows it; one that counts the tasks does not.
    // One row: the two tasks may have been counted in two shards.
    const [{ shard }] = await h.db.$queryRaw<[{ shard: number }]>`SELECT shard FROM "TaskCount" WHERE "projectId" = ${projectId} LIMIT 1`;
    await h.db.$executeRaw`UPDATE "TaskCount" SET count = count + 1000 WHERE "projectId" = ${projectId} AND shard = ${shard}`;
    await h.db.$executeRaw`UPDATE "TaskLabelCount" SET count = count + 1000 WHERE "projectId" = ${projectId}`;
    try {
      expect(await total(`projectId=${projectId}&labelId=${label}`)).toBe(1001);
      expect(await total(`projectId=${projectId}&labelId=${label},${unused}`)).toBe(1);
      expect(await total(`projectId=${projectId}&labelId=${label}&status=todo`)).toBe(1);
      expect(await total(`projectId=${projectId}`)).toBe(1002);
      expect(await total(`projectId=${projectId}&status=todo&priority=medium&assigneeId=none&topLevel=true`)).toBe(1002);
      expect(await total(`projectId=${projectId}&q=zeppelin`)).toBe(1);
      expect(await total(`projectId=${projectId}&createdSince=2000-01-01T00:00:00Z`)).toBe(2);
    } finally {
      await h.db.$executeRaw`UPDATE "TaskCount" SET count = count - 1000 WHERE "projectId" = ${projectId} AND shard = ${shard}`;
      await h.db.$executeRaw`UPDATE "TaskLabelCount" SET count = count - 1000 WHERE "projectId" = ${projectId}`;
    }
  });

  it('never count another tenant or mode', async () => {
    const other = await createOrg(h.db);
    const theirs = (await as(h.app, other.liveKey).post('/v1/projects', { name: 'Theirs' })).body.id;
    await as(h.app, other.liveKey).post('/v1/tasks', { projectId: theirs, title: 'Theirs' });
    const sandbox = (await as(h.app, org.testKey).post('/v1/projects', { name: 'Sandbox' })).body.id;
    await as(h.app, org.testKey).post('/v1/tasks', { projectId: sandbox, title: 'Test mode' });
    const live = await h.db.task.count({ where: { organizationId: org.organization.id, mode: 'live' } });
    expect(await total('status=todo,in_progress,done')).toBe(live);
    expect(await total(`projectId=${theirs}`)).toBe(0);
    expect(await total(`projectId=${sandbox}`)).toBe(0);
  });
});
