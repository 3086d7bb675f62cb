import request from 'supertest';
import { startTestStore, storeEnv, type TestStore } from '@test-support/embedded-store';
import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

const ROUNDS = 5;
const PUBLIC_BASE_URL = 'https://api.example.test';
/** A public address literal: no DNS lookup, and no worker runs here to deliver to it. */
const HOOK_URL = 'https://93.184.215.14/hooks';

let s3: TestStore;
let h: Harness;
let org: TestOrg;
let projectId: string;
let taskId: string;

beforeAll(async () => {
  s3 = await startTestStore();
  h = createHarness({
    PUBLIC_BASE_URL,
    ...storeEnv(s3),
  });
  org = await createOrg(h.db);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Conditional' })).body.id;
  taskId = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Parent', projectId })).body.id;
});
afterAll(async () => {
  await h.close();
  await s3.close();
});

const api = () => as(h.app, org.liveKey);
const pathOf = (location: string) => new URL(location).pathname;

/** Creates a record and answers with its 201: every kind of record that has a GET of its own. */
const CREATE: Record<string, () => Promise<request.Response>> = {
  task: () => api().post('/v1/tasks', { title: 'Conditional', projectId }),
  project: () => api().post('/v1/projects', { name: 'Conditional' }),
  comment: () => api().post(`/v1/tasks/${taskId}/comments`, { content: 'First thought' }),
  webhook: () => api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'] }),
  file: () =>
    request(h.app)
      .post('/v1/files')
      .set('Authorization', `Bearer ${org.liveKey}`)
      .field('projectId', projectId)
      .attach('file', Buffer.from('bytes'), { filename: 'a.txt', contentType: 'text/plain' }),
  delivery: async () => api().post(`/v1/webhooks/${(await CREATE.webhook!()).body.id}/test`, {}),
};

/** A change to each record that has a PATCH. */
const CHANGE: Record<string, object> = {
  task: { title: 'Changed' },
  project: { name: 'Changed' },
  comment: { content: 'Second thought' },
  webhook: { description: 'Changed' },
};

async function created(kind: string): Promise<{ path: string; body: Record<string, unknown> }> {
  const res = await CREATE[kind]!();
  expect(res.status).toBe(201);
  return { path: pathOf(res.headers.location!), body: res.body };
}

const etagOf = async (path: string) => {
  const res = await api().get(path);
  expect(res.status).toBe(200);
  return res.headers.etag!;
};

describe('Location', () => {
  it.each(Object.keys(CREATE))('is the URL of the new %s, under PUBLIC_BASE_URL, where GET finds it', async (kind) => {
    const res = await CREATE[kind]!();
    expect(res.headers.location).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/v1/[\\w/-]+/${res.body.id}$`));
    const fetched = await api().get(pathOf(res.headers.location!));
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ id: res.body.id });
  });

  it('names the invitation, the accepted member, the API key and the dashboard link', async () => {
    const invitation = await api().post('/v1/members/invite', { email: `loc-${Date.now()}@example.com`, role: 'member' });
    expect(invitation.headers.location).toBe(`${PUBLIC_BASE_URL}/v1/members/invitations/${invitation.body.id}`);
    const accepted = await request(h.app).post('/v1/invitations/accept').send({ token: invitation.body.token, name: 'Loc' });
    expect(accepted.status).toBe(201);
    expect(accepted.headers.location).toBe(`${PUBLIC_BASE_URL}/v1/members/${accepted.body.member.id}`);
    const key = await api().post('/v1/api-keys', { name: 'loc' });
    expect(key.headers.location).toBe(`${PUBLIC_BASE_URL}/v1/api-keys/${key.body.id}`);
    const link = await api().post('/v1/dashboard-links');
    expect(link.headers.location).toBe(link.body.url);
  });

  it('comes again with a replayed creation', async () => {
    const key = `loc-${Date.now()}`;
    const first = await api().post('/v1/projects', { name: 'Once' }).set('Idempotency-Key', key);
    const again = await api().post('/v1/projects', { name: 'Once' }).set('Idempotency-Key', key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
  });
});

describe('ETag and If-None-Match', () => {
  it.each(Object.keys(CREATE))('a %s answers with an ETag, and 304 with no body while it is unchanged', async (kind) => {
    const { path } = await created(kind);
    const etag = await etagOf(path);
    expect(etag).toMatch(/^"[\w-]+"$/);
    for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await api().get(path).set('If-None-Match', condition);
      expect({ condition, status: res.status, text: res.text, etag: res.headers.etag }).toEqual({ condition, status: 304, text: '', etag });
    }
    expect((await api().get(path).set('If-None-Match', '"other"')).status).toBe(200);
  });

  it.each(Object.keys(CHANGE))('a %s gets a new ETag when it changes, which its PATCH answers with', async (kind) => {
    const { path } = await created(kind);
    const before = await etagOf(path);
    const patched = await api().patch(path, CHANGE[kind]!);
    expect(patched.headers.etag).not.toBe(before);
    expect(await etagOf(path)).toBe(patched.headers.etag);
    const res = await api().get(path).set('If-None-Match', before);
    expect(res.status).toBe(200);
  });

  it('an event, too', async () => {
    const [event] = (await api().get('/v1/events?limit=1')).body.data;
    const etag = await etagOf(`/v1/events/${event.id}`);
    expect((await api().get(`/v1/events/${event.id}`).set('If-None-Match', etag)).status).toBe(304);
  });
});

describe('If-Match', () => {
  it.each(Object.keys(CHANGE))('a PATCH of a %s based on an old ETag gets 412 and changes nothing', async (kind) => {
    const { path } = await created(kind);
    const original = await etagOf(path);
    expectError(await api().patch(path, CHANGE[kind]!).set('If-Match', '"stale"'), 412, 'precondition_failed', null);
    expect(await etagOf(path)).toBe(original);
    const current = await api().patch(path, CHANGE[kind]!).set('If-Match', original);
    expect(current.status).toBe(200);
    const refused = await api().patch(path, CHANGE[kind]!).set('If-Match', original);
    expectError(refused, 412, 'precondition_failed');
    expect(refused.body.error.type).toBe('conflict_error');
    expect((await api().patch(path, CHANGE[kind]!).set('If-Match', '*')).status).toBe(200);
  });

  it.each(['task', 'project', 'comment', 'webhook', 'file'])('a DELETE of a %s based on an old ETag gets 412 and deletes nothing', async (kind) => {
    const { path } = await created(kind);
    const etag = await etagOf(path);
    expectError(await api().delete(path).set('If-Match', '"stale"'), 412, 'precondition_failed');
    expect(await etagOf(path)).toBe(etag);
    expect((await api().delete(path).set('If-Match', etag)).status).toBe(204);
    expectError(await api().get(path), 404, 'not_found');
  });

  it.each(Object.keys(CHANGE))('of two writers of a %s holding the same ETag, one wins and the other gets 412', async (kind) => {
    for (let round = 0; round < ROUNDS; round++) {
      const { path } = await created(kind);
      const etag = await etagOf(path);
      const [a, b] = await Promise.all([
        api().patch(path, CHANGE[kind]!).set('If-Match', etag),
        api()
          .patch(path, { ...CHANGE[kind]! })
          .set('If-Match', etag),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 412]);
      expect(await etagOf(path)).toBe((a.status === 200 ? a : b).headers.etag);
    }
  });
});
