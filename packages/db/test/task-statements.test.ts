import { createDatabase, insertTaskWithEvent, newId, Prisma, queryOnPool, type Database, type Mode, type Task } from '../src/index';
import { addMember, createOrg, type TestOrg } from '@test-support/api-harness';

let database: Database;
let org: TestOrg;
let projectId: string;

beforeAll(async () => {
  database = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
  org = await createOrg(database.db);
  projectId = (await database.db.project.create({ data: { id: newId('project'), organizationId: org.organization.id, mode: 'live', name: 'P' } })).id;
});
afterAll(() => database.close());

function task(overrides: Partial<Task> = {}): Task {
  const now = new Date('2026-11-22T10:00:00.123Z');
  return {
    id: newId('task'),
    organizationId: org.organization.id,
    mode: 'live',
    projectId,
    title: 'T',
    description: 'D',
    status: 'in_progress',
    priority: 'high',
    assigneeId: null,
    creatorId: org.user.id,
    dueDate: new Date('2026-12-01T00:00:00.000Z'),
    customFields: { points: 3, flag: true },
    labelIds: [],
    parentId: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

const eventFor = (t: Task, mode: Mode = t.mode) => ({
  id: newId('event'),
  organizationId: t.organizationId,
  mode,
  type: 'task.created',
  data: { id: t.id },
  actor: { type: 'system' },
});

function subscribe(events: string[], mode: Mode = 'live', status: 'active' | 'disabled' = 'active') {
  return database.db.webhook.create({
    data: { id: newId('webhook'), organizationId: org.organization.id, mode, url: 'https://example.com/hooks', secret: 'whsec_x', events, status },
  });
}

describe('insertTaskWithEvent', () => {
  it('writes the task as given and its outbox row, awaiting dispatch when a subscription wants it', async () => {
    const member = await addMember(database.db, org);
    const t = task({ assigneeId: member.userId });
    const event = eventFor(t);
    const webhook = await subscribe(['task.created']);
    expect(await insertTaskWithEvent(database.pool, t, event)).toEqual({ awaited: true });
    await database.db.webhook.delete({ where: { id: webhook.id } });
    expect(await database.db.task.findUniqueOrThrow({ where: { id: t.id } })).toEqual(t);
    expect(await database.db.outboxEvent.findUniqueOrThrow({ where: { id: event.id } })).toMatchObject({
      organizationId: t.organizationId,
      mode: 'live',
      type: 'task.created',
      data: { id: t.id },
      createdAt: t.createdAt,
      dispatchedAt: null,
    });
  });
});

describe('an event no active subscription wants', () => {
  it.each<[string, () => Promise<{ id: string }[]>]>([
    ['none at all', async () => []],
    ['only other types', async () => [await subscribe(['task.deleted', 'project.created'])]],
    ['only the other mode', async () => [await subscribe(['*'], 'test')]],
    ['only a disabled one', async () => [await subscribe(['*'], 'live', 'disabled')]],
  ])('is written dispatched, not awaited (%s)', async (_case, make) => {
    const webhooks = await make();
    const t = task();
    const event = eventFor(t);
    try {
      expect(await insertTaskWithEvent(database.pool, t, event)).toEqual({ awaited: false });
      expect((await database.db.outboxEvent.findUniqueOrThrow({ where: { id: event.id } })).dispatchedAt).not.toBeNull();
    } finally {
      await database.db.webhook.deleteMany({ where: { id: { in: webhooks.map((w) => w.id) } } });
    }
  });

  it('is awaited as soon as a subscription lists its type or *', async () => {
    for (const events of [['task.created'], ['*']]) {
      const webhook = await subscribe(events);
      const t = task();
      expect(await insertTaskWithEvent(database.pool, t, eventFor(t))).toEqual({ awaited: true });
      await database.db.webhook.delete({ where: { id: webhook.id } });
    }
  });
});

describe('queryOnPool', () => {
  it("reads what Prisma's $queryRaw reads for the same statement: timestamps, JSON, enums, nulls and bound values", async () => {
    const t = task({ title: 'it\'s; DROP TABLE "Task"' });
    await insertTaskWithEvent(database.pool, t, eventFor(t));
    const statement = Prisma.sql`SELECT *, count(*) OVER ()::int AS total FROM "Task" WHERE id = ${t.id} AND title = ${t.title} AND status = ANY(${['in_progress', 'done']}::"TaskStatus"[])`;

    const rows = await queryOnPool<Task & { total: number }>(database.pool, statement);

    expect(rows).toEqual([{ ...t, total: 1 }]);
    expect(rows).toEqual(await database.db.$queryRaw(statement));
  });
});
