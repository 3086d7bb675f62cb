import { newId, webhookSecretContext, type Prisma, type Webhook } from '@worktrack/db';
import { addMember, as, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess, type SecuredRoute } from '@test-support/access-checks';

// No allowlist: the https and public-address rules apply in full. Public IP literals need no DNS.
const HOOK_URL = 'https://93.184.215.14/hooks';
const OTHER_URL = 'https://1.1.1.1/other';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAY_MS = 24 * 3600 * 1000;
/** What a webhook created with only its url, events and description shows: active, no delivery controls set. */
const AS_CREATED = {
  status: 'active',
  disabledReason: null,
  disabledAt: null,
  maxConcurrency: 10,
  rateLimit: null,
  ordering: 'none',
  pausedUntil: null,
  projectIds: null,
  filter: null,
  headers: null,
  createdAt: expect.stringMatching(ISO),
  updatedAt: expect.stringMatching(ISO),
};

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let webhookId: string;
let deliveryId: string;

beforeAll(async () => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '' });
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  webhookId = await subscribe(org);
  deliveryId = (await insertDelivery(org, webhookId)).id;
});
afterAll(() => h.close());

/*
 * Any test worker running meanwhile (other test files share the database) sweeps every overdue
 * pending delivery of an active subscription and would really POST it. So fixtures are pending
 * only with a future nextAttemptAt, and a test that makes a due delivery uses a subscription
 * from `disposable()`, deleted (with its deliveries) as soon as the test ends.
 */
const disposables: string[] = [];
afterEach(async () => {
  await h.db.webhook.deleteMany({ where: { id: { in: disposables.splice(0) } } });
});

async function disposable(body: object = {}): Promise<string> {
  const id = await subscribe(org, body);
  disposables.push(id);
  return id;
}

const ctx = () => ({ harness: h, org, otherOrg });

async function subscribe(owner: TestOrg, body: object = {}): Promise<string> {
  const res = await as(h.app, owner.liveKey).post('/v1/webhooks', { url: HOOK_URL, events: ['task.created'], secret: 'secret_known_secret', ...body });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** A row's secrets as the worker opens them: the table holds them sealed (docs/decisions.md#http-behaviour-and-secrets-at-rest). */
function opened(row: Webhook): { secret: string; previousSecret: string | null } {
  const open = (value: string) => h.deps.secrets.open(value, webhookSecretContext(row.id));
  for (const value of [row.secret, row.previousSecret ?? '']) expect(value).not.toMatch(/secret_|whsec_/);
  return { secret: open(row.secret), previousSecret: row.previousSecret === null ? null : open(row.previousSecret) };
}

/** A delivery-log row written directly, as the worker would have left it; not yet due unless told. */
function insertDelivery(owner: TestOrg, forWebhook: string, data: Partial<Prisma.DeliveryUncheckedCreateInput> = {}) {
  const id = data.id ?? newId('delivery');
  const eventType = data.eventType ?? 'task.created';
  return h.db.delivery.create({
    data: {
      id,
      organizationId: owner.organization.id,
      mode: 'live',
      webhookId: forWebhook,
      eventType,
      body: JSON.stringify({ event: eventType, deliveryId: id, webhookId: forWebhook, data: { id: 'tsk_x' } }),
      nextAttemptAt: new Date(Date.now() + DAY_MS),
      ...data,
    },
  });
}

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

describe('access to every webhook route', () => {
  const routes = (): SecuredRoute[] => [
    { method: 'get', path: '/v1/webhooks', permission: 'webhooks:read' },
    { method: 'post', path: '/v1/webhooks', permission: 'webhooks:write', body: { url: HOOK_URL, events: ['*'] } },
    { method: 'get', path: `/v1/webhooks/${webhookId}`, permission: 'webhooks:read' },
    { method: 'patch', path: `/v1/webhooks/${webhookId}`, permission: 'webhooks:write', body: { description: 'x' } },
    { method: 'delete', path: `/v1/webhooks/${webhookId}`, permission: 'webhooks:write' },
    { method: 'get', path: `/v1/webhooks/${webhookId}/deliveries`, permission: 'webhooks:read' },
    { method: 'get', path: `/v1/webhooks/${webhookId}/deliveries/${deliveryId}`, permission: 'webhooks:read' },
    { method: 'post', path: `/v1/webhooks/${webhookId}/test`, permission: 'webhooks:write', body: {} },
    { method: 'post', path: `/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, permission: 'webhooks:write' },
    { method: 'get', path: `/v1/webhooks/${webhookId}/secret`, permission: 'webhooks:write' },
  ];
  const names = ['GET list', 'POST create', 'GET one', 'PATCH', 'DELETE', 'GET deliveries', 'GET delivery', 'POST test', 'POST redeliver', 'GET secret'];

  describe.each(names.map((name, i) => [name, i] as const))('%s', (_name, i) => {
    itEnforcesAccess(ctx, () => routes()[i]!, { namesResource: i !== 0 && i !== 1 });
  });

  it.each(names.map((name, i) => [name, i] as const))('refuses a member-role key with every permission: %s', async (_name, i) => {
    const member = await addMember(h.db, org, { role: 'member' });
    const r = routes()[i]!;
    expectError(await as(h.app, member.key)[r.method](r.path).send(r.body), 403, 'forbidden');
  });
});

describe('POST /v1/webhooks', () => {
  it('creates a subscription and returns exactly the record, without the secret it was given', async () => {
    const owner = await createOrg(h.db);
    const body = { url: HOOK_URL, events: ['task.created', 'project.deleted'], description: 'CI hook', secret: 'secret_supplied_secret' };
    const res = await as(h.app, owner.liveKey).post('/v1/webhooks', body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Z]{26}$/),
      url: HOOK_URL,
      events: ['task.created', 'project.deleted'],
      description: 'CI hook',
      ...AS_CREATED,
    });
    const stored = await h.db.webhook.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(stored).toMatchObject({ organizationId: owner.organization.id, mode: 'live' });
    expect(opened(stored).secret).toBe('secret_supplied_secret');
  });

  it.each([
    ['whsec_not-base64!!', 'not base64'],
    [`whsec_${Buffer.alloc(16, 1).toString('base64')}`, '16 bytes'],
    [`whsec_${Buffer.alloc(65, 1).toString('base64')}`, '65 bytes'],
    ['short', 'under 8 characters'],
    ['x'.repeat(256), 'over 255 characters'],
  ])('refuses the secret %s (%s), naming secret', async (secret) => {
    expectError(await as(h.app, org.liveKey).post('/v1/webhooks', { url: HOOK_URL, events: ['*'], secret }), 400, 'invalid_request', 'secret');
  });

  it('generates a whsec_ secret when none is given and returns it once', async () => {
    const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url: HOOK_URL, events: ['*'] });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/); // docs/decisions.md#signatures-and-secrets: whsec_ + base64 of 32 bytes
    expect(res.body.description).toBeNull();
    const stored = await h.db.webhook.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(opened(stored).secret).toBe(res.body.secret);
    await as(h.app, org.liveKey).delete(`/v1/webhooks/${res.body.id}`).expect(204);
  });

  it.each([
    [{ events: ['*'] }, 'url'],
    [{ url: HOOK_URL }, 'events'],
    [{ url: 'not a url', events: ['*'] }, 'url'],
    [{ url: 'ftp://93.184.215.14/hooks', events: ['*'] }, 'url'],
    [{ url: 'http://93.184.215.14/hooks', events: ['*'] }, 'url'],
    [{ url: 'https://127.0.0.1/hooks', events: ['*'] }, 'url'],
    [{ url: 'https://10.0.0.1/hooks', events: ['*'] }, 'url'],
    [{ url: 'https://169.254.169.254/latest/meta-data', events: ['*'] }, 'url'],
    [{ url: 'https://[::1]/hooks', events: ['*'] }, 'url'],
    [{ url: 'https://user:pass@93.184.215.14/hooks', events: ['*'] }, 'url'],
    [{ url: HOOK_URL, events: [] }, 'events'],
    [{ url: HOOK_URL, events: ['task.exploded'] }, 'events'],
    [{ url: HOOK_URL, events: ['task.created', 'task.exploded'] }, 'events'],
    [{ url: HOOK_URL, events: 'task.created' }, 'events'],
    [{ url: HOOK_URL, events: ['*', 'task.created'] }, 'events'],
    [{ url: HOOK_URL, events: ['task.created', 'task.created'] }, 'events'],
    [{ url: HOOK_URL, events: ['*'], secret: 'short' }, 'secret'],
    [{ url: HOOK_URL, events: ['*'], secret: 12345678 }, 'secret'],
    [{ url: HOOK_URL, events: ['*'], description: 'x'.repeat(501) }, 'description'],
    [{ url: HOOK_URL, events: ['*'], scret: 'typo-of-secret' }, 'scret'],
    [{ url: HOOK_URL, events: ['*'], status: 'disabled' }, 'status'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).post('/v1/webhooks', body), 400, 'invalid_request', param);
  });

  it('allows 2 subscriptions on the free plan and refuses a third with 403 quota_exceeded', async () => {
    const free = await createOrg(h.db, { plan: 'free' });
    await subscribe(free);
    await subscribe(free);
    const res = await as(h.app, free.liveKey).post('/v1/webhooks', { url: HOOK_URL, events: ['*'] });
    expectError(res, 403, 'quota_exceeded');
    expect(res.body.error.type).toBe('quota_error');
    expect(await h.db.webhook.count({ where: { organizationId: free.organization.id } })).toBe(2);
  });

  it('frees a quota slot when a subscription is deleted', async () => {
    const free = await createOrg(h.db, { plan: 'free' });
    const first = await subscribe(free);
    await subscribe(free);
    await as(h.app, free.liveKey).delete(`/v1/webhooks/${first}`).expect(204);
    expect((await as(h.app, free.liveKey).post('/v1/webhooks', { url: HOOK_URL, events: ['*'] })).status).toBe(201);
  });

  it('counts the quota per mode: test subscriptions never use up live ones', async () => {
    const free = await createOrg(h.db, { plan: 'free' });
    const create = (key: string) => as(h.app, key).post('/v1/webhooks', { url: HOOK_URL, events: ['*'], secret: 'secret_known_secret' });
    expect((await create(free.testKey)).status).toBe(201);
    expect((await create(free.testKey)).status).toBe(201);
    expectError(await create(free.testKey), 403, 'quota_exceeded');
    expect((await create(free.liveKey)).status).toBe(201);
    expect((await create(free.liveKey)).status).toBe(201);
    expectError(await create(free.liveKey), 403, 'quota_exceeded');
  });

  it('never lets concurrent creations go past the quota', async () => {
    for (let round = 0; round < 3; round += 1) {
      const free = await createOrg(h.db, { plan: 'free' });
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => as(h.app, free.liveKey).post('/v1/webhooks', { url: HOOK_URL, events: ['*'], secret: 'secret_known_secret' })),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 403, 403, 403, 403]);
      expect(await h.db.webhook.count({ where: { organizationId: free.organization.id } })).toBe(2);
    }
  });

  it('lets an enterprise organization go well past the other plans’ small limits', async () => {
    const enterprise = await createOrg(h.db, { plan: 'enterprise' });
    for (let i = 0; i < 5; i += 1) await subscribe(enterprise);
    expect(await h.db.webhook.count({ where: { organizationId: enterprise.organization.id } })).toBe(5);
  });

  it('makes a test key’s subscription a test-mode one', async () => {
    const owner = await createOrg(h.db);
    const res = await as(h.app, owner.testKey).post('/v1/webhooks', { url: HOOK_URL, events: ['*'], secret: 'secret_for_tests' });
    expect(res.status).toBe(201);
    expect((await h.db.webhook.findUniqueOrThrow({ where: { id: res.body.id } })).mode).toBe('test');
    expect((await as(h.app, owner.liveKey).get('/v1/webhooks')).body.pagination.total).toBe(0);
  });
});

describe('GET /v1/webhooks', () => {
  let owner: TestOrg;
  const created: string[] = [];

  beforeAll(async () => {
    owner = await createOrg(h.db);
    for (const events of [['task.created'], ['project.created'], ['*']]) created.push(await subscribe(owner, { events }));
  });

  it('lists the subscriptions newest first in the pagination envelope, never with a secret', async () => {
    const res = await as(h.app, owner.liveKey).get('/v1/webhooks');
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([...created].sort().reverse());
    expect(res.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, hasMore: false, nextCursor: null });
    for (const record of res.body.data) {
      expect(Object.keys(record).sort()).toEqual([
        'createdAt',
        'description',
        'disabledAt',
        'disabledReason',
        'events',
        'filter',
        'headers',
        'id',
        'maxConcurrency',
        'ordering',
        'pausedUntil',
        'projectIds',
        'rateLimit',
        'status',
        'updatedAt',
        'url',
      ]);
    }
    expect(JSON.stringify(res.body)).not.toContain('secret_known_secret');
  });

  it('pages with limit and offset', async () => {
    const res = await as(h.app, owner.liveKey).get('/v1/webhooks?limit=1&offset=1');
    expect(ids(res)).toEqual([[...created].sort().reverse()[1]]);
    expect(res.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true, nextCursor: expect.any(String) });
  });

  it("never shows another organization's or the other mode's subscriptions", async () => {
    expect((await as(h.app, otherOrg.liveKey).get('/v1/webhooks')).body.data).not.toContainEqual(expect.objectContaining({ id: created[0] }));
    expect((await as(h.app, owner.testKey).get('/v1/webhooks')).body.pagination.total).toBe(0);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['offset=-1', 'offset'],
    ['status=active', 'status'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, owner.liveKey).get(`/v1/webhooks?${query}`), 400, 'invalid_request', param);
  });
});

describe('GET /v1/webhooks/{id}', () => {
  it('returns the record, never the secret', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: webhookId,
      url: HOOK_URL,
      events: ['task.created'],
      description: null,
      ...AS_CREATED,
    });
  });

  it('answers 404 naming webhookId for an unknown id', async () => {
    expectError(await as(h.app, org.liveKey).get('/v1/webhooks/whk_missing'), 404, 'not_found', 'webhookId');
  });
});

describe('GET /v1/webhooks/{id}/secret', () => {
  it('reveals the current secret to a key with webhooks:write, never cached', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/secret`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ secret: 'secret_known_secret' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toBeUndefined();
  });

  it('reveals a generated secret as the create returned it, and after a rotation the new one', async () => {
    const created = await as(h.app, org.liveKey).post('/v1/webhooks', { url: HOOK_URL, events: ['*'] });
    disposables.push(created.body.id);
    const reveal = () => as(h.app, org.liveKey).get(`/v1/webhooks/${created.body.id}/secret`).expect(200);
    expect((await reveal()).body).toEqual({ secret: created.body.secret });
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${created.body.id}`, { secret: 'secret_after_rotation' }).expect(200);
    expect((await reveal()).body).toEqual({ secret: 'secret_after_rotation' });
  });

  it('answers 403 to a key with webhooks:read alone, and 404 to another organization for its id', async () => {
    expectError(await as(h.app, await keyWith(h.db, org, ['webhooks:read'])).get(`/v1/webhooks/${webhookId}/secret`), 403, 'forbidden');
    const foreign = await subscribe(otherOrg);
    expectError(await as(h.app, org.liveKey).get(`/v1/webhooks/${foreign}/secret`), 404, 'not_found', 'webhookId');
    expect((await as(h.app, otherOrg.liveKey).get(`/v1/webhooks/${foreign}/secret`)).status).toBe(200);
  });
});

describe('PATCH /v1/webhooks/{id}', () => {
  let target: string;
  beforeEach(async () => {
    target = await disposable();
  });

  it('changes url, events and description, and updatedAt moves', async () => {
    const before = (await as(h.app, org.liveKey).get(`/v1/webhooks/${target}`)).body;
    const res = await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, {
      url: OTHER_URL,
      events: ['comment.created', 'comment.deleted'],
      description: 'Moved',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      url: OTHER_URL,
      events: ['comment.created', 'comment.deleted'],
      description: 'Moved',
      updatedAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    expect((await as(h.app, org.liveKey).get(`/v1/webhooks/${target}`)).body).toEqual(res.body);
  });

  it('clears the description with null', async () => {
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, { description: 'Temp' }).expect(200);
    expect((await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, { description: null })).body.description).toBeNull();
  });

  it('rotates the secret, keeping the old one for 24 hours, and never returns either', async () => {
    const t0 = Date.now();
    const res = await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, { secret: 'secret_rotated_secret' });
    const t1 = Date.now();
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('secret');
    expect(JSON.stringify(res.body)).not.toMatch(/secret_rotated_secret|secret_known_secret/);
    const stored = await h.db.webhook.findUniqueOrThrow({ where: { id: target } });
    expect(opened(stored)).toEqual({ secret: 'secret_rotated_secret', previousSecret: 'secret_known_secret' });
    const expiresAt = stored.previousSecretExpiresAt!.getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(t0 + DAY_MS - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(t1 + DAY_MS + 1_000);
  });

  it('disables with status "disabled" and re-enables with status "active"', async () => {
    const disabled = await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, { status: 'disabled' });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ status: 'disabled', disabledReason: expect.any(String), disabledAt: expect.stringMatching(ISO) });
    const enabled = await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, { status: 'active' });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'active', disabledReason: null, disabledAt: null });
  });

  it('re-enabling resumes the pending deliveries at once', async () => {
    const waiting = await insertDelivery(org, target, { nextAttemptAt: new Date(Date.now() + 3600_000) });
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, { status: 'disabled' }).expect(200);
    const t0 = Date.now();
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, { status: 'active' }).expect(200);
    const stored = await h.db.delivery.findUniqueOrThrow({ where: { id: waiting.id } });
    expect(stored.status).toBe('pending');
    expect(stored.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(stored.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(t0 - 1_000);
  });

  it.each([
    [{ url: 'http://93.184.215.14/hooks' }, 'url'],
    [{ url: 'https://127.0.0.1/hooks' }, 'url'],
    [{ url: 'https://10.0.0.1/hooks' }, 'url'],
    [{ url: 'https://169.254.169.254/latest/meta-data' }, 'url'],
    [{ events: [] }, 'events'],
    [{ events: ['nope'] }, 'events'],
    [{ events: 'task.created' }, 'events'],
    [{ secret: 'short' }, 'secret'],
    [{ status: 'paused' }, 'status'],
    [{ id: 'whk_other' }, 'id'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, body), 400, 'invalid_request', param);
  });

  it('answers 404 for an unknown id', async () => {
    expectError(await as(h.app, org.liveKey).patch('/v1/webhooks/whk_missing', { description: 'x' }), 404, 'not_found', 'webhookId');
  });
});

describe('DELETE /v1/webhooks/{id}', () => {
  it('deletes with 204 and no body, with its delivery log; the id is then unknown', async () => {
    const target = await subscribe(org);
    await insertDelivery(org, target);
    const res = await as(h.app, org.liveKey).delete(`/v1/webhooks/${target}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await as(h.app, org.liveKey).get(`/v1/webhooks/${target}`), 404, 'not_found', 'webhookId');
    expectError(await as(h.app, org.liveKey).delete(`/v1/webhooks/${target}`), 404, 'not_found', 'webhookId');
    expect(await h.db.delivery.count({ where: { webhookId: target } })).toBe(0);
  });
});

describe('GET /v1/webhooks/{id}/deliveries', () => {
  let target: string;
  /** Newest first: ids sorted descending, createdAt following the same order. */
  let newestFirst: string[];

  beforeAll(async () => {
    target = await subscribe(org, { events: ['*'] });
    const specs = [
      { eventType: 'task.created', status: 'succeeded' },
      { eventType: 'task.created', status: 'failed' },
      { eventType: 'project.created', status: 'succeeded' },
      { eventType: 'project.created', status: 'pending' },
    ] as const;
    const sortedIds = specs.map(() => newId('delivery')).sort();
    const base = Date.now() - 60_000;
    for (const [i, spec] of specs.entries()) {
      await insertDelivery(org, target, { id: sortedIds[i], ...spec, createdAt: new Date(base + i * 1_000) });
    }
    newestFirst = [...sortedIds].reverse();
  });

  it('lists the log newest first in the pagination envelope', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${target}/deliveries`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(newestFirst);
    expect(res.body.pagination).toEqual({ total: 4, limit: 50, offset: 0, hasMore: false, nextCursor: null });
    expect(res.body.data[0]).toEqual({
      id: newestFirst[0],
      webhookId: target,
      eventId: null,
      event: 'project.created',
      status: 'pending',
      test: false,
      attemptCount: 0,
      lastAttemptAt: null,
      lastResponseStatus: null,
      lastResponseTimeMs: null,
      nextAttemptAt: expect.stringMatching(ISO),
      createdAt: expect.stringMatching(ISO),
    });
  });

  it('pages with limit and offset', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${target}/deliveries?limit=2&offset=1`);
    expect(ids(res)).toEqual(newestFirst.slice(1, 3));
    expect(res.body.pagination).toEqual({ total: 4, limit: 2, offset: 1, hasMore: true, nextCursor: expect.any(String) });
  });

  it.each([
    ['status=succeeded', [0, 2]],
    ['status=failed', [1]],
    ['status=pending', [3]],
    ['event=project.created', [2, 3]],
    ['event=project.created&status=succeeded', [2]],
    ['event=comment.created', []],
  ])('filters ?%s', async (query, positions) => {
    const oldestFirst = [...newestFirst].reverse();
    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${target}/deliveries?${query}`);
    expect(ids(res)).toEqual(positions.map((p) => oldestFirst[p]).reverse());
    expect(res.body.pagination.total).toBe(positions.length);
  });

  it.each([
    ['status=done', 'status'],
    ['event=task.exploded', 'event'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['offset=-1', 'offset'],
    ['since=yesterday', 'since'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, org.liveKey).get(`/v1/webhooks/${target}/deliveries?${query}`), 400, 'invalid_request', param);
  });

  it('answers 404 for an unknown webhook', async () => {
    expectError(await as(h.app, org.liveKey).get('/v1/webhooks/whk_missing/deliveries'), 404, 'not_found', 'webhookId');
  });
});

describe('GET /v1/webhooks/{id}/deliveries/{deliveryId}', () => {
  it('returns the delivery with its payload and every attempt in order', async () => {
    const target = await subscribe(org);
    const delivery = await insertDelivery(org, target, { status: 'succeeded', attemptCount: 2, lastAttemptAt: new Date('2026-03-01T10:01:00.000Z') });
    await h.db.deliveryAttempt.createMany({
      data: [
        {
          id: newId('attempt'),
          deliveryId: delivery.id,
          attemptNumber: 2,
          attemptedAt: new Date('2026-03-01T10:01:00.000Z'),
          responseStatus: 200,
          responseTimeMs: 35,
          error: null,
        },
        {
          id: newId('attempt'),
          deliveryId: delivery.id,
          attemptNumber: 1,
          attemptedAt: new Date('2026-03-01T10:00:00.000Z'),
          responseStatus: null,
          responseTimeMs: 5000,
          error: 'timeout',
        },
      ],
    });
    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${target}/deliveries/${delivery.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: delivery.id,
      webhookId: target,
      event: 'task.created',
      status: 'succeeded',
      attemptCount: 2,
      lastAttemptAt: '2026-03-01T10:01:00.000Z',
      nextAttemptAt: null,
      payload: JSON.parse(delivery.body),
    });
    expect(res.body.attempts).toEqual([
      {
        attemptNumber: 1,
        attemptedAt: '2026-03-01T10:00:00.000Z',
        responseStatus: null,
        responseTimeMs: 5000,
        error: 'timeout',
        responseBody: null,
        responseHeaders: null,
        requestHeaders: null,
      },
      {
        attemptNumber: 2,
        attemptedAt: '2026-03-01T10:01:00.000Z',
        responseStatus: 200,
        responseTimeMs: 35,
        error: null,
        responseBody: null,
        responseHeaders: null,
        requestHeaders: null,
      },
    ]);
  });

  it('answers 404 naming deliveryId for an unknown delivery and for one of another subscription', async () => {
    const other = await subscribe(org);
    expectError(await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries/dlv_missing`), 404, 'not_found', 'deliveryId');
    expectError(await as(h.app, org.liveKey).get(`/v1/webhooks/${other}/deliveries/${deliveryId}`), 404, 'not_found', 'deliveryId');
  });
});

describe('POST /v1/webhooks/{id}/test', () => {
  it('logs a sample delivery of the first subscribed type, marked test', async () => {
    const target = await disposable({ events: ['project.updated', 'task.created'] });
    const res = await as(h.app, org.liveKey).post(`/v1/webhooks/${target}/test`, {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^dlv_/), webhookId: target, event: 'project.updated', test: true, status: 'pending' });
    const stored = await h.db.delivery.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(JSON.parse(stored.body)).toMatchObject({
      event: 'project.updated',
      webhookId: target,
      deliveryId: res.body.id,
      test: true,
      data: expect.objectContaining({ id: expect.any(String) }),
      organization: { id: org.organization.id, name: org.organization.name },
    });
    const listed = await as(h.app, org.liveKey).get(`/v1/webhooks/${target}/deliveries`);
    expect(ids(listed)).toEqual([res.body.id]);
  });

  it('sends the requested event type', async () => {
    const target = await disposable();
    const res = await as(h.app, org.liveKey).post(`/v1/webhooks/${target}/test`, { event: 'comment.deleted' });
    expect(res.status).toBe(201);
    expect(res.body.event).toBe('comment.deleted');
  });

  it.each([
    [{ event: 'task.exploded' }, 'event'],
    [{ event: ['task.created'] }, 'event'],
    [{ type: 'task.created' }, 'type'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/test`, body), 400, 'invalid_request', param);
  });
});

describe('POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', () => {
  it('schedules the same delivery again at once', async () => {
    const target = await disposable();
    const failed = await insertDelivery(org, target, { status: 'failed', attemptCount: 7, nextAttemptAt: null });
    const res = await as(h.app, org.liveKey).post(`/v1/webhooks/${target}/deliveries/${failed.id}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: failed.id, webhookId: target, status: 'pending', attemptCount: 7, nextAttemptAt: expect.stringMatching(ISO) });
    expect(await h.db.delivery.findUniqueOrThrow({ where: { id: failed.id } })).toMatchObject({ status: 'pending', body: failed.body });
  });

  it('answers 409 conflict while a worker is attempting the delivery', async () => {
    const target = await subscribe(org);
    const busy = await insertDelivery(org, target, { lockedUntil: new Date(Date.now() + 60_000) });
    expectError(await as(h.app, org.liveKey).post(`/v1/webhooks/${target}/deliveries/${busy.id}/redeliver`), 409, 'conflict', 'deliveryId');
  });

  it('answers 409 conflict while the subscription is disabled', async () => {
    const target = await subscribe(org);
    const failed = await insertDelivery(org, target, { status: 'failed' });
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${target}`, { status: 'disabled' }).expect(200);
    expectError(await as(h.app, org.liveKey).post(`/v1/webhooks/${target}/deliveries/${failed.id}/redeliver`), 409, 'conflict');
    expect((await h.db.delivery.findUniqueOrThrow({ where: { id: failed.id } })).status).toBe('failed');
  });

  it('answers 404 naming deliveryId for an unknown delivery and for one of another subscription', async () => {
    const other = await subscribe(org);
    expectError(await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/deliveries/dlv_missing/redeliver`), 404, 'not_found', 'deliveryId');
    expectError(await as(h.app, org.liveKey).post(`/v1/webhooks/${other}/deliveries/${deliveryId}/redeliver`), 404, 'not_found', 'deliveryId');
  });
});
