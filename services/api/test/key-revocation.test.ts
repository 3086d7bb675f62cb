import { randomUUID } from 'node:crypto';
import { addMember, as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';

// Two API replicas sharing Redis, each with its own key cache. Their caches keep keys for a
// minute here, far past the contract's 1 s, so only the revocation itself can make them refuse:
// at once on the replica that made the change, within 1 s on the other.
const WITHIN_MS = 1_000;
const LONG_LIFETIME_MS = 60_000;

let revoking: Harness;
let other: Harness;
let org: TestOrg;

beforeAll(async () => {
  const shared = { REDIS_PREFIX: `wt-test-${randomUUID().slice(0, 8)}` };
  revoking = createHarness(shared, { keyCacheLifetimeMs: LONG_LIFETIME_MS });
  other = createHarness(shared, { keyCacheLifetimeMs: LONG_LIFETIME_MS });
  await Promise.all([revoking.deps.keyRevocations.listening, other.deps.keyRevocations.listening]);
  org = await createOrg(revoking.db);
});
afterAll(() => Promise.all([revoking.close(), other.close()]));

/** Uses the key on both replicas, so both caches hold it. */
async function cachedOnBoth(key: string) {
  for (const replica of [revoking, other]) expect((await as(replica.app, key).get('/v1/tasks')).status).toBe(200);
}

const refusedWithin = (replica: Harness, key: string, path = '/v1/tasks', status = 401) =>
  waitFor(async () => ((await as(replica.app, key).get(path)).status === status ? true : undefined), { timeoutMs: WITHIN_MS });

describe('a cached API key', () => {
  it('is refused at once on the replica that revoked it and within 1 s on another', async () => {
    const { body: created } = await as(revoking.app, org.liveKey).post('/v1/api-keys', { name: 'doomed' });
    await cachedOnBoth(created.key);

    await as(revoking.app, org.liveKey).delete(`/v1/api-keys/${created.id}`).expect(204);
    expectError(await as(revoking.app, created.key).get('/v1/tasks'), 401, 'unauthenticated');
    await refusedWithin(other, created.key);
  });

  it('stops working at once, and within 1 s elsewhere, when its user is removed', async () => {
    const member = await addMember(revoking.db, org, { role: 'member' });
    await cachedOnBoth(member.key);

    await as(revoking.app, org.liveKey).delete(`/v1/members/${member.userId}`).expect(204);
    expectError(await as(revoking.app, member.key).get('/v1/tasks'), 401, 'unauthenticated');
    await refusedWithin(other, member.key);
  });

  it("grants only the new role's rights at once, and within 1 s elsewhere, after a role change", async () => {
    const member = await addMember(revoking.db, org, { role: 'member' });
    for (const replica of [revoking, other]) expect((await as(replica.app, member.key).get('/v1/projects')).status).toBe(200);

    await as(revoking.app, org.liveKey).patch(`/v1/members/${member.userId}`, { role: 'guest' }).expect(200);
    expect((await as(revoking.app, member.key).post('/v1/projects', { name: 'Denied' })).status).toBe(403);
    await waitFor(async () => ((await as(other.app, member.key).post('/v1/projects', { name: 'Denied' })).status === 403 ? true : undefined), {
      timeoutMs: WITHIN_MS,
    });
  });

  it('makes a replica forget only the organization whose keys changed', async () => {
    const bystander = await createOrg(revoking.db);
    await cachedOnBoth(bystander.liveKey);
    const { body: created } = await as(revoking.app, org.liveKey).post('/v1/api-keys', { name: 'other org' });
    await as(revoking.app, org.liveKey).delete(`/v1/api-keys/${created.id}`).expect(204);
    // Revoked behind the cache's back: only a cache that still holds the key lets it through.
    await revoking.db.apiKey.updateMany({ where: { organizationId: bystander.organization.id }, data: { revokedAt: new Date() } });
    expect((await as(revoking.app, bystander.liveKey).get('/v1/tasks')).status).toBe(200);
  });
});
