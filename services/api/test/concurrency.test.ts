import { addMember, as, createHarness, createOrg, type Harness } from '@test-support/api-harness';

/**
 * Guards that only matter when requests overlap. Each race is run a few times: without its guard
 * at least one round interleaves badly and the test fails.
 */
const ROUNDS = 5;

let h: Harness;

beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

describe('the last-admin rule under concurrency', () => {
  // Each admin acts on their own membership, so neither request's authentication depends on the other's outcome.
  it.each([
    ['demote themselves', (key: string, userId: string) => as(h.app, key).patch(`/v1/members/${userId}`, { role: 'member' }), 200],
    ['remove themselves', (key: string, userId: string) => as(h.app, key).delete(`/v1/members/${userId}`), 204],
  ])('keeps one admin when the last two admins %s at once: one succeeds, the other gets 409', async (_, act, success) => {
    for (let round = 0; round < ROUNDS; round++) {
      const org = await createOrg(h.db);
      const second = await addMember(h.db, org, { role: 'admin' });
      const responses = await Promise.all([act(org.liveKey, org.user.id), act(second.key, second.userId)]);
      expect(responses.map((r) => r.status).sort()).toEqual([success, 409].sort());
      expect(await h.db.membership.count({ where: { organizationId: org.organization.id, role: 'admin' } })).toBe(1);
    }
  });
});

describe('task updates under concurrency', () => {
  it('chains the previousAttributes of concurrent updates: each sees the title the one before it wrote', async () => {
    const org = await createOrg(h.db);
    const api = as(h.app, org.liveKey);
    const projectId = (await api.post('/v1/projects', { name: 'Race' })).body.id;
    for (let round = 0; round < ROUNDS; round++) {
      const task = (await api.post('/v1/tasks', { title: 'original', projectId })).body;
      const titles = ['first', 'second', 'third'];
      const responses = await Promise.all(titles.map((title) => api.patch(`/v1/tasks/${task.id}`, { title })));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);

      // Event ids are made in commit order, so the outbox orders the updates as they happened.
      const rows = await h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id, type: 'task.updated' }, orderBy: { id: 'asc' } });
      const updates = rows.map((row) => row.data as { id: string; title: string; previousAttributes: { title: string } }).filter((data) => data.id === task.id);
      expect(updates.map((u) => u.previousAttributes.title)).toEqual(['original', ...updates.slice(0, -1).map((u) => u.title)]);
      expect((await api.get(`/v1/tasks/${task.id}`)).body.title).toBe(updates.at(-1)!.title);
    }
  });
});
