import { addMember, as, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';

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
const post = (key: string, path: string, body: object, idempotencyKey: string) => as(h.app, key).post(path, body).set('Idempotency-Key', idempotencyKey);

/** Every idempotency record this harness's Redis prefix holds, raw. */
async function storedRecords(): Promise<string[]> {
  const keys = await h.deps.redis.keys(`${h.deps.config.redisPrefix}:idempotency:*`);
  return keys.length === 0 ? [] : ((await h.deps.redis.mget(keys)) as string[]);
}

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, creating one task and one event', async () => {
    const events = await countEvents();
    const send = () => post(org.liveKey, '/v1/tasks', { title: 'Once', projectId }, 'create-once');
    const first = await send();
    const second = await send();
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await countTasks()).toBe(1);
    expect(await countEvents()).toBe(events + 1);
  });

  it('answers 409 when the key is reused with another body', async () => {
    await post(org.liveKey, '/v1/tasks', { title: 'A', projectId }, 'reused').expect(201);
    const res = await post(org.liveKey, '/v1/tasks', { title: 'B', projectId }, 'reused');
    expectError(res, 409, 'conflict', 'Idempotency-Key');
    expect(res.body.error.type).toBe('conflict_error');
  });

  it('belongs to the API key: the same Idempotency-Key under another key of the same organization and mode is a new request', async () => {
    const otherKey = await keyWith(h.db, org, ['*']);
    const first = await post(org.liveKey, '/v1/projects', { name: 'Mine' }, 'per-key');
    const second = await post(otherKey, '/v1/projects', { name: 'Mine' }, 'per-key');
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.id).not.toBe(first.body.id);
    const testProject = await post(org.testKey, '/v1/projects', { name: 'Mine' }, 'per-key');
    expect(testProject.body.id).not.toBe(first.body.id);
  });

  it("never replays an admin's new API key to a key lacking api_keys:write", async () => {
    const body = { name: 'ops', permissions: ['*'] };
    const created = await post(org.liveKey, '/v1/api-keys', body, 'mint-key');
    expect(created.status).toBe(201);
    const reader = await keyWith(h.db, org, ['tasks:read']);
    const replay = await post(reader, '/v1/api-keys', body, 'mint-key');
    expectError(replay, 403, 'forbidden');
    expect(JSON.stringify(replay.body)).not.toContain(created.body.key);
  });

  it("never replays an admin's invitation token to a guest", async () => {
    const body = { email: 'new-admin@example.com', role: 'admin' };
    const invited = await post(org.liveKey, '/v1/members/invite', body, 'invite-admin');
    expect(invited.status).toBe(201);
    const guest = await addMember(h.db, org, { role: 'guest' });
    const replay = await post(guest.key, '/v1/members/invite', body, 'invite-admin');
    expectError(replay, 403, 'forbidden');
    expect(JSON.stringify(replay.body)).not.toContain(invited.body.token);
  });

  it('validates before replaying, and stores no outcome for a request that failed validation', async () => {
    await post(org.liveKey, '/v1/tasks', { title: 'Valid', projectId }, 'validate-first').expect(201);
    expectError(await post(org.liveKey, '/v1/tasks', { projectId }, 'validate-first'), 400, 'invalid_request', 'title');

    expectError(await post(org.liveKey, '/v1/tasks', { projectId }, 'invalid-once'), 400, 'invalid_request', 'title');
    const corrected = await post(org.liveKey, '/v1/tasks', { title: 'Corrected', projectId }, 'invalid-once');
    expect(corrected.status).toBe(201);
  });

  it("replays the handler's own refusals, which did their checks against the data", async () => {
    const body = { title: 'Orphan', projectId: 'prj_unknown' };
    const first = await post(org.liveKey, '/v1/tasks', body, 'handler-refusal');
    expectError(first, 400, 'invalid_request', 'projectId');
    const second = await post(org.liveKey, '/v1/tasks', body, 'handler-refusal');
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
  });

  it('keeps no key, token or secret readable in Redis', async () => {
    const key = await post(org.liveKey, '/v1/api-keys', { name: 'sealed', permissions: ['tasks:read'] }, 'sealed-key');
    const invitation = await post(org.liveKey, '/v1/members/invite', { email: 'sealed@example.com', role: 'member' }, 'sealed-invite');
    const records = (await storedRecords()).join('\n');
    expect(records.length).toBeGreaterThan(0);
    for (const secret of [key.body.key, key.body.id, invitation.body.token, invitation.body.id, 'sealed@example.com']) {
      expect(records).not.toContain(secret);
    }
    const replay = await post(org.liveKey, '/v1/api-keys', { name: 'sealed', permissions: ['tasks:read'] }, 'sealed-key');
    expect(replay.body.key).toBe(key.body.key);
  });

  it('refuses an over-long key', async () => {
    const res = await post(org.liveKey, '/v1/tasks', { title: 'x', projectId }, 'k'.repeat(256));
    expectError(res, 400, 'invalid_request', 'Idempotency-Key');
  });
});

describe('Idempotency-Key while Redis is unreachable', () => {
  let down: Harness;
  beforeAll(() => {
    down = createHarness({ REDIS_URL: 'redis://127.0.0.1:1' });
  });
  afterAll(() => down.close());

  it('answers 503 to a request carrying a key, and serves one without', async () => {
    const withKey = await as(down.app, org.liveKey).post('/v1/projects', { name: 'Down' }).set('Idempotency-Key', 'while-down');
    expectError(withKey, 503, 'unavailable');
    const withoutKey = await as(down.app, org.liveKey).post('/v1/projects', { name: 'Down' });
    expect(withoutKey.status).toBe(201);
  });
});
