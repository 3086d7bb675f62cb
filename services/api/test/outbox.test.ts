import { newId } from '@worktrack/db';
import { as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';

let h: Harness;

beforeAll(async () => {
  h = createHarness();
  // A commit-time failure for chosen organizations: a deferred constraint trigger fires after the
  // change and its outbox rows were written, so the whole transaction must roll back.
  await h.db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS wt_test_failing_org (id text PRIMARY KEY)`);
  await h.db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION wt_test_fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM wt_test_failing_org WHERE id = COALESCE(NEW."organizationId", OLD."organizationId")) THEN
        RAISE EXCEPTION 'simulated failure at commit';
      END IF;
      RETURN NULL;
    END $$`);
  for (const table of ['Task', 'Project']) {
    await h.db.$executeRawUnsafe(`DROP TRIGGER IF EXISTS wt_test_fail_commit ON "${table}"`);
    await h.db.$executeRawUnsafe(
      `CREATE CONSTRAINT TRIGGER wt_test_fail_commit AFTER INSERT OR UPDATE OR DELETE ON "${table}"
       DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wt_test_fail_commit()`,
    );
  }
});
afterAll(() => h.close());

async function outbox(org: TestOrg) {
  const rows = await h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id }, orderBy: { id: 'asc' } });
  return rows.map((row) => ({ type: row.type, mode: row.mode, data: row.data as Record<string, unknown> }));
}

describe('the outbox', () => {
  it('commits one row per event with the change that caused it', async () => {
    const org = await createOrg(h.db);
    const api = as(h.app, org.liveKey);
    const project = (await api.post('/v1/projects', { name: 'P' })).body;
    const renamed = (await api.patch(`/v1/projects/${project.id}`, { name: 'P2' })).body;
    const task = (await api.post('/v1/tasks', { title: 'T', projectId: project.id })).body;
    const retitled = (await api.patch(`/v1/tasks/${task.id}`, { title: 'T2' })).body;
    const done = (await api.patch(`/v1/tasks/${task.id}`, { status: 'done' })).body;
    await api.patch(`/v1/tasks/${task.id}`, { status: 'done' }).expect(200);
    await api.delete(`/v1/tasks/${task.id}`).expect(204);
    await api.delete(`/v1/projects/${project.id}`).expect(204);

    expect(await outbox(org)).toEqual([
      { type: 'project.created', mode: 'live', data: project },
      { type: 'project.updated', mode: 'live', data: { ...renamed, previousAttributes: { name: 'P' } } },
      { type: 'task.created', mode: 'live', data: task },
      { type: 'task.updated', mode: 'live', data: { ...retitled, previousAttributes: { title: 'T' } } },
      { type: 'task.updated', mode: 'live', data: { ...done, previousAttributes: { status: 'todo' } } },
      { type: 'task.completed', mode: 'live', data: done },
      { type: 'task.deleted', mode: 'live', data: done },
      { type: 'project.deleted', mode: 'live', data: renamed },
    ]);
  });

  it('records test-mode events in test mode', async () => {
    const org = await createOrg(h.db);
    await as(h.app, org.testKey).post('/v1/projects', { name: 'Sandbox' }).expect(201);
    expect((await outbox(org)).map((e) => e.mode)).toEqual(['test']);
  });

  it('holds no row when the change rolls back, and the change is absent too', async () => {
    const org = await createOrg(h.db);
    const api = as(h.app, org.liveKey);
    const project = (await api.post('/v1/projects', { name: 'Stable' })).body;
    const task = (await api.post('/v1/tasks', { title: 'Stable', projectId: project.id })).body;
    const before = await outbox(org);
    await h.db.$executeRaw`INSERT INTO wt_test_failing_org (id) VALUES (${org.organization.id})`;
    try {
      const attempts = [
        api.post('/v1/projects', { name: 'Lost' }),
        api.patch(`/v1/projects/${project.id}`, { name: 'Lost' }),
        api.post('/v1/tasks', { title: 'Lost', projectId: project.id }),
        api.patch(`/v1/tasks/${task.id}`, { status: 'done' }),
        api.delete(`/v1/tasks/${task.id}`),
        api.delete(`/v1/projects/${project.id}`),
      ];
      for (const attempt of attempts) expect((await attempt).status).toBe(500);
    } finally {
      await h.db.$executeRaw`DELETE FROM wt_test_failing_org WHERE id = ${org.organization.id}`;
    }
    expect(await outbox(org)).toEqual(before);
    expect((await api.get(`/v1/tasks/${task.id}`)).body).toEqual(task);
    expect((await api.get(`/v1/projects/${project.id}`)).body).toEqual(project);
    expect((await api.get(`/v1/tasks?projectId=${project.id}`)).body.pagination.total).toBe(1);
  });

  it('publishes the events a subscription awaits, and writes the others dispatched, unpublished', async () => {
    const org = await createOrg(h.db);
    const api = as(h.app, org.liveKey);
    const project = (await api.post('/v1/projects', { name: 'Quiet' })).body;
    await h.db.webhook.create({
      data: {
        id: newId('webhook'),
        organizationId: org.organization.id,
        mode: 'live',
        url: 'https://example.com/hooks',
        secret: 's',
        events: ['task.created'],
      },
    });
    await api.post('/v1/tasks', { title: 'Awaited', projectId: project.id }).expect(201);
    await api.patch(`/v1/projects/${project.id}`, { name: 'Unheard' }).expect(200);

    const rows = await h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id } });
    const byType = Object.fromEntries(rows.map((row) => [row.type, row]));
    expect(byType['project.created']!.dispatchedAt).not.toBeNull();
    expect(byType['project.updated']!.dispatchedAt).not.toBeNull();
    expect(byType['task.created']!.dispatchedAt).toBeNull();
    const published = async (id: string) => (await h.deps.jobs.eventsQueueOf(org.organization.id).getJob(id)) !== undefined;
    // The publisher adds within milliseconds of the commit: wait until the awaited event is there.
    await waitFor(async () => ((await published(byType['task.created']!.id)) ? true : undefined));
    expect(await published(byType['project.created']!.id)).toBe(false);
    expect(await published(byType['project.updated']!.id)).toBe(false);
  });
});
