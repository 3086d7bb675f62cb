import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from './support/harness';

let h: Harness;
let org: TestOrg;
let projectId: string;

beforeAll(async () => {
  h = createHarness();
  org = await createOrg(h.db);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Idem' })).body.id;
});
afterAll(() => h.close());

const countTasks = () => h.db.task.count({ where: { projectId } });
const countEvents = () => h.db.outboxEvent.count({ where: { organizationId: org.organization.id, type: 'task.created' } });

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, creating one task and one event', async () => {
    const events = await countEvents();
    const send = () => as(h.app, org.liveKey).post('/v1/tasks', { title: 'Once', projectId }).set('Idempotency-Key', 'create-once');
    const first = await send();
    const second = await send();
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await countTasks()).toBe(1);
    expect(await countEvents()).toBe(events + 1);
  });

  it('answers 409 when the key is reused with another body', async () => {
    await as(h.app, org.liveKey).post('/v1/tasks', { title: 'A', projectId }).set('Idempotency-Key', 'reused').expect(201);
    const res = await as(h.app, org.liveKey).post('/v1/tasks', { title: 'B', projectId }).set('Idempotency-Key', 'reused');
    expectError(res, 409, 'conflict', 'Idempotency-Key');
    expect(res.body.error.type).toBe('conflict_error');
  });

  it('scopes keys to the organization and mode', async () => {
    const testProject = (await as(h.app, org.testKey).post('/v1/projects', { name: 'T' }).set('Idempotency-Key', 'shared')).body;
    const liveProject = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'T' }).set('Idempotency-Key', 'shared')).body;
    expect(liveProject.id).not.toBe(testProject.id);
  });

  it('replays validation errors too, and refuses an over-long key', async () => {
    const bad = () => as(h.app, org.liveKey).post('/v1/tasks', { projectId }).set('Idempotency-Key', 'invalid-once');
    expectError(await bad(), 400, 'invalid_request', 'title');
    expectError(await bad(), 400, 'invalid_request', 'title');
    expectError(
      await as(h.app, org.liveKey).post('/v1/tasks', { title: 'x', projectId }).set('Idempotency-Key', 'k'.repeat(256)),
      400,
      'invalid_request',
      'Idempotency-Key',
    );
  });
});
