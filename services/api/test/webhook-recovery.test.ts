import { newId, type Prisma } from '@worktrack/db';
import { addMember, as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess, type SecuredRoute } from '@test-support/access-checks';

/*
 * The rules of POST /webhooks/{id}/recover and GET /webhooks/{id}/stats, read from the database:
 * no worker runs here, so nothing is sent (test/delivery-log.test.ts sends for real).
 */

const HOOK_URL = 'https://93.184.215.14/hooks';
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;

beforeAll(async () => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '' });
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
});
afterAll(() => h.close());

async function subscribe(owner: TestOrg, events: string[] = ['task.created'], key = owner.liveKey): Promise<string> {
  const res = await as(h.app, key).post('/v1/webhooks', { url: HOOK_URL, events, secret: 'secret_known_secret' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

function insertEvent(owner: TestOrg, type: string, createdAt: Date, mode: 'live' | 'test' = 'live') {
  return h.db.outboxEvent.create({
    data: { id: newId('event'), organizationId: owner.organization.id, mode, type, data: { id: 'tsk_x' }, createdAt, dispatchedAt: createdAt },
  });
}

function insertDelivery(owner: TestOrg, webhookId: string, data: Partial<Prisma.DeliveryUncheckedCreateInput> = {}) {
  const id = data.id ?? newId('delivery');
  return h.db.delivery.create({
    data: {
      id,
      organizationId: owner.organization.id,
      mode: 'live',
      webhookId,
      eventType: 'task.created',
      body: JSON.stringify({ event: 'task.created', deliveryId: id, webhookId, data: { id: 'tsk_x' } }),
      ...data,
    },
  });
}

const since = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

describe('access', () => {
  let webhookId: string;
  beforeAll(async () => {
    webhookId = await subscribe(org);
  });
  const routes = (): SecuredRoute[] => [
    { method: 'post', path: `/v1/webhooks/${webhookId}/recover`, permission: 'webhooks:write', body: { since: since(HOUR_MS) } },
    { method: 'get', path: `/v1/webhooks/${webhookId}/stats`, permission: 'webhooks:read' },
  ];
  describe.each([
    ['POST recover', 0],
    ['GET stats', 1],
  ] as const)('%s', (_name, i) => {
    itEnforcesAccess(
      () => ({ harness: h, org, otherOrg }),
      () => routes()[i]!,
      { namesResource: true },
    );
  });

  it('refuses a member-role key, whose role lacks webhooks:*', async () => {
    const member = await addMember(h.db, org, { role: 'member' });
    for (const r of routes()) expectError(await as(h.app, member.key)[r.method](r.path).send(r.body), 403, 'forbidden');
  });
});

describe('POST /v1/webhooks/{id}/recover', () => {
  it('sends failed deliveries of the window again, same id, with a fresh set of attempts', async () => {
    const webhookId = await subscribe(org);
    const failed = await insertDelivery(org, webhookId, {
      status: 'failed',
      attemptCount: 7,
      lastAttemptAt: new Date(),
      createdAt: new Date(Date.now() - 2 * HOUR_MS),
    });
    const old = await insertDelivery(org, webhookId, { status: 'failed', attemptCount: 7, createdAt: new Date(Date.now() - 5 * HOUR_MS) });
    const succeeded = await insertDelivery(org, webhookId, { status: 'succeeded', attemptCount: 1, createdAt: new Date(Date.now() - HOUR_MS) });
    const sample = await insertDelivery(org, webhookId, { status: 'failed', test: true, attemptCount: 1, createdAt: new Date(Date.now() - HOUR_MS) });

    const t0 = Date.now();
    const res = await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: since(3 * HOUR_MS) });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ recovered: 1 });

    const resent = await h.db.delivery.findUniqueOrThrow({ where: { id: failed.id } });
    expect(resent).toMatchObject({ status: 'pending', attemptCount: 7, attemptsBeforeRecovery: 7, lockedUntil: null, body: failed.body });
    expect(resent.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(t0 - 1_000);
    for (const untouched of [old, succeeded, sample]) {
      expect((await h.db.delivery.findUniqueOrThrow({ where: { id: untouched.id } })).status).toBe(untouched.status);
    }
    const listed = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries/${failed.id}`);
    expect(listed.body).toMatchObject({ id: failed.id, status: 'pending' });
  });

  it('makes the missing deliveries: events of its organization, mode and types in the window with none for it', async () => {
    const owner = await createOrg(h.db);
    const webhookId = await subscribe(owner, ['task.created', 'project.created']);
    const other = await subscribe(owner, ['*']);
    const missed = [
      await insertEvent(owner, 'task.created', new Date(Date.now() - 2 * HOUR_MS)),
      await insertEvent(owner, 'project.created', new Date(Date.now() - HOUR_MS)),
    ];
    const delivered = await insertEvent(owner, 'task.created', new Date(Date.now() - HOUR_MS));
    await insertDelivery(owner, webhookId, { eventId: delivered.id, status: 'succeeded' });
    await insertEvent(owner, 'comment.created', new Date(Date.now() - HOUR_MS)); // a type it does not list
    await insertEvent(owner, 'task.created', new Date(Date.now() - 5 * HOUR_MS)); // before the window
    await insertEvent(owner, 'task.created', new Date(Date.now() - HOUR_MS), 'test'); // the other mode
    await insertEvent(otherOrg, 'task.created', new Date(Date.now() - HOUR_MS)); // another organization

    const res = await as(h.app, owner.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: since(3 * HOUR_MS) });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ recovered: 2 });

    const made = await h.db.delivery.findMany({ where: { webhookId, eventId: { in: missed.map((e) => e.id) } }, orderBy: { eventId: 'asc' } });
    expect(made.map((d) => d.eventId)).toEqual(missed.map((e) => e.id).sort());
    for (const delivery of made) {
      const event = missed.find((e) => e.id === delivery.eventId)!;
      expect(delivery).toMatchObject({ status: 'pending', attemptCount: 0, eventType: event.type, mode: 'live', organizationId: owner.organization.id });
      expect(JSON.parse(delivery.body)).toEqual({
        event: event.type,
        timestamp: event.createdAt.toISOString(),
        webhookId,
        deliveryId: delivery.id,
        data: { id: 'tsk_x' },
        organization: { id: owner.organization.id, name: owner.organization.name },
        actor: { type: 'system' },
      });
    }
    expect(await h.db.delivery.count({ where: { webhookId: other } })).toBe(0);

    const again = await as(h.app, owner.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: since(3 * HOUR_MS) });
    expect(again.body).toEqual({ recovered: 0 });
  });

  it('takes until as the end of the window', async () => {
    const owner = await createOrg(h.db);
    const webhookId = await subscribe(owner);
    const early = await insertEvent(owner, 'task.created', new Date(Date.now() - 3 * HOUR_MS));
    await insertEvent(owner, 'task.created', new Date(Date.now() - HOUR_MS));
    const res = await as(h.app, owner.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: since(4 * HOUR_MS), until: since(2 * HOUR_MS) });
    expect(res.body).toEqual({ recovered: 1 });
    expect((await h.db.delivery.findFirstOrThrow({ where: { webhookId } })).eventId).toBe(early.id);
  });

  it('recovers at most 10,000 per call, oldest first; the next call goes on', async () => {
    const owner = await createOrg(h.db);
    const webhookId = await subscribe(owner);
    const start = Date.now() - 2 * HOUR_MS;
    await h.db.$executeRaw`
      INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "createdAt", "dispatchedAt")
      SELECT 'evt_bulk_' || lpad(n::text, 6, '0'), ${owner.organization.id}, 'live', 'task.created', '{}'::jsonb,
             ${new Date(start)}::timestamptz + n * interval '1 millisecond', now()
      FROM generate_series(1, 10001) AS n`;
    const first = await as(h.app, owner.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: since(3 * HOUR_MS) });
    expect(first.body).toEqual({ recovered: 10_000 });
    expect(await h.db.delivery.count({ where: { webhookId, eventId: 'evt_bulk_010001' } })).toBe(0);
    const second = await as(h.app, owner.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: since(3 * HOUR_MS) });
    expect(second.body).toEqual({ recovered: 1 });
    expect(await h.db.delivery.count({ where: { webhookId } })).toBe(10_001);
  }, 60_000);

  it('answers 409 on a disabled subscription and recovers nothing', async () => {
    const webhookId = await subscribe(org);
    await insertDelivery(org, webhookId, { status: 'failed', createdAt: new Date(Date.now() - HOUR_MS) });
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${webhookId}`, { status: 'disabled' }).expect(200);
    expectError(await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: since(2 * HOUR_MS) }), 409, 'conflict', 'webhookId');
    expect(await h.db.delivery.count({ where: { webhookId, status: 'pending' } })).toBe(0);
  });

  it.each([
    [{}, 'since'],
    [{ since: 'yesterday' }, 'since'],
    [{ since: new Date(Date.now() - 15 * DAY_MS).toISOString() }, 'since'],
    [{ since: new Date(Date.now() - HOUR_MS).toISOString(), until: new Date(Date.now() - 2 * HOUR_MS).toISOString() }, 'until'],
    [{ since: new Date(Date.now() - HOUR_MS).toISOString(), until: 'now' }, 'until'],
    [{ since: new Date(Date.now() - HOUR_MS).toISOString(), from: 'x' }, 'from'],
  ])('refuses %j naming %s', async (body, param) => {
    const webhookId = await subscribe(org);
    expectError(await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/recover`, body), 400, 'invalid_request', param);
  });

  it('accepts a window reaching exactly 14 days back', async () => {
    const webhookId = await subscribe(org);
    const res = await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: new Date(Date.now() - 14 * DAY_MS + MINUTE_MS).toISOString() });
    expect(res.status).toBe(202);
  });

  it("recovers a test subscription's test events only", async () => {
    const owner = await createOrg(h.db);
    const webhookId = await subscribe(owner, ['*'], owner.testKey);
    await insertEvent(owner, 'task.created', new Date(Date.now() - HOUR_MS), 'live');
    const testEvent = await insertEvent(owner, 'task.created', new Date(Date.now() - HOUR_MS), 'test');
    const res = await as(h.app, owner.testKey).post(`/v1/webhooks/${webhookId}/recover`, { since: since(2 * HOUR_MS) });
    expect(res.body).toEqual({ recovered: 1 });
    expect((await h.db.delivery.findFirstOrThrow({ where: { webhookId } })).eventId).toBe(testEvent.id);
  });
});

describe('GET /v1/webhooks/{id}/stats', () => {
  async function attempt(webhookId: string, at: Date, responseTimeMs: number, ok: boolean) {
    const delivery = await insertDelivery(org, webhookId, { status: ok ? 'succeeded' : 'failed', attemptCount: 1, lastAttemptAt: at });
    await h.db.deliveryAttempt.create({
      data: {
        id: newId('attempt'),
        deliveryId: delivery.id,
        attemptNumber: 1,
        attemptedAt: at,
        responseStatus: ok ? 200 : 500,
        responseTimeMs,
        error: ok ? null : 'http_status: receiver answered 500',
      },
    });
  }

  it('sums up the attempts of the last 24 hours, with hourly counts', async () => {
    const webhookId = await subscribe(org);
    const now = Date.now();
    const times = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    for (const [i, ms] of times.entries()) await attempt(webhookId, new Date(now - (i + 1) * MINUTE_MS), ms, i !== 2 && i !== 5);
    await attempt(webhookId, new Date(now - 5 * HOUR_MS), 500, false);
    await attempt(webhookId, new Date(now - 25 * HOUR_MS), 9_999, true); // outside the window

    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/stats`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      window: '24h',
      attempts: 11,
      succeeded: 8,
      failed: 3,
      successRate: 0.7273,
      p50Ms: 60,
      p95Ms: 500,
      lastSuccessAt: new Date(now - MINUTE_MS).toISOString(),
      lastFailureAt: new Date(now - 3 * MINUTE_MS).toISOString(),
    });
    expect(res.body.hourly).toHaveLength(24);
    const total = (res.body.hourly as { succeeded: number; failed: number }[]).reduce((sum, hour) => sum + hour.succeeded + hour.failed, 0);
    expect(total).toBe(11);
    const fiveHoursAgo = (res.body.hourly as { start: string; failed: number }[]).find((hour) => {
      const start = Date.parse(hour.start);
      return start <= now - 5 * HOUR_MS && now - 5 * HOUR_MS < start + HOUR_MS;
    });
    expect(fiveHoursAgo?.failed).toBe(1);
    expect(Date.parse(res.body.hourly[23].start)).toBeLessThanOrEqual(now);
    expect(Date.parse(res.body.hourly[23].start)).toBeGreaterThan(now - HOUR_MS);
  });

  it('answers nulls for a subscription with no attempt yet', async () => {
    const webhookId = await subscribe(org);
    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/stats`);
    expect(res.body).toMatchObject({
      attempts: 0,
      succeeded: 0,
      failed: 0,
      successRate: null,
      p50Ms: null,
      p95Ms: null,
      lastSuccessAt: null,
      lastFailureAt: null,
    });
    expect((res.body.hourly as { succeeded: number; failed: number }[]).every((hour) => hour.succeeded === 0 && hour.failed === 0)).toBe(true);
  });

  it('answers 404 naming webhookId for an unknown subscription', async () => {
    expectError(await as(h.app, org.liveKey).get('/v1/webhooks/whk_missing/stats'), 404, 'not_found', 'webhookId');
  });
});
