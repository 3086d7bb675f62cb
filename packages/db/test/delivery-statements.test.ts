import {
  claimDeliveries,
  createDatabase,
  fanOutEvents,
  firstAttemptsPending,
  newId,
  recordAttempts,
  undispatchedEvents,
  type AttemptRecord,
  type Database,
} from '../src/index';
import { Pool } from 'pg';
import { createOrg, type TestOrg } from '../../../services/api/test/support/harness';

let database: Database;
let org: TestOrg;

beforeAll(async () => {
  database = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
  org = await createOrg(database.db);
});
afterAll(() => database.close());

const CLAIM_MS = 60_000;

async function webhook(events = ['*'], status: 'active' | 'disabled' = 'active') {
  return database.db.webhook.create({
    data: { id: newId('webhook'), organizationId: org.organization.id, mode: 'live', url: 'https://example.com/hook', events, secret: 'secret-value', status },
  });
}

async function event(type = 'project.created') {
  return database.db.outboxEvent.create({ data: { id: newId('event'), organizationId: org.organization.id, mode: 'live', type, data: { id: 'prj_1' } } });
}

async function delivery(webhookId: string, fields: { attemptCount?: number; status?: 'pending' | 'succeeded'; lockedUntil?: Date; test?: boolean } = {}) {
  return database.db.delivery.create({
    data: { id: newId('delivery'), organizationId: org.organization.id, mode: 'live', webhookId, eventType: 'project.created', body: '{}', ...fields },
  });
}

describe('fanOutEvents', () => {
  it('gives each event not yet dispatched a delivery per matching subscription, once, whoever else dispatches it', async () => {
    const [all, projects, tasksOnly] = [await webhook(['*']), await webhook(['project.created']), await webhook(['task.created'])];
    await webhook(['*'], 'disabled');
    const [first, second] = [await event(), await event()];

    const found = await undispatchedEvents(database.pool, [first.id, second.id]);
    expect(found.map((e) => [e.id, [...e.webhookIds].sort()])).toEqual(
      [first, second].map((e) => [e.id, [all.id, projects.id].sort()]).sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
    expect(found.flatMap((e) => e.webhookIds)).not.toContain(tasksOnly.id);

    const deliveries = found.flatMap((e) =>
      e.webhookIds.map((webhookId) => ({ id: newId('delivery'), eventId: e.id, webhookId, body: `{"e":"${e.id}"}`, claim: false })),
    );
    const again = deliveries.map((d) => ({ ...d, id: newId('delivery') }));
    const [inserted, raced] = await Promise.all([
      fanOutEvents(database.pool, [first.id, second.id], deliveries, CLAIM_MS),
      fanOutEvents(database.pool, [second.id, first.id], again, CLAIM_MS),
    ]);
    expect([inserted, raced].map((ids) => ids.length).sort()).toEqual([0, 4]);
    expect(await database.db.delivery.count({ where: { eventId: { in: [first.id, second.id] } } })).toBe(4);
    expect(await undispatchedEvents(database.pool, [first.id, second.id])).toEqual([]);
  });

  it('leases the first attempts asked for, as claimDeliveries would, unless the subscription was disabled meanwhile', async () => {
    const [leased, unleased, disabledMeanwhile] = [await webhook(['project.created']), await webhook(['project.created']), await webhook(['project.created'])];
    const created = await event();
    await database.db.webhook.update({ where: { id: disabledMeanwhile.id }, data: { status: 'disabled' } });
    const asked = [
      { id: newId('delivery'), eventId: created.id, webhookId: leased.id, body: '{"leased":true}', claim: true },
      { id: newId('delivery'), eventId: created.id, webhookId: unleased.id, body: '{}', claim: false },
      { id: newId('delivery'), eventId: created.id, webhookId: disabledMeanwhile.id, body: '{}', claim: true },
    ];

    const fannedOut = await fanOutEvents(database.pool, [created.id], asked, CLAIM_MS);

    const byWebhook = new Map(fannedOut.map((d) => [asked.find((a) => a.id === d.id)!.webhookId, d]));
    expect(byWebhook.get(leased.id)!.claimed).toEqual({
      id: asked[0]!.id,
      eventType: 'project.created',
      body: '{"leased":true}',
      test: false,
      attemptsBeforeRecovery: 0,
      attemptCount: 0,
      webhookId: leased.id,
      url: leased.url,
      secret: leased.secret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      eventCreatedAt: created.createdAt,
    });
    expect(byWebhook.get(unleased.id)!.claimed).toBeNull();
    expect(byWebhook.get(disabledMeanwhile.id)!.claimed).toBeNull();
    const rows = await database.db.delivery.findMany({ where: { eventId: created.id } });
    const lockedUntil = (webhookId: string) => rows.find((r) => r.webhookId === webhookId)!.lockedUntil;
    expect(lockedUntil(leased.id)!.getTime()).toBeGreaterThan(Date.now() + CLAIM_MS / 2);
    expect(lockedUntil(unleased.id)).toBeNull();
    expect(lockedUntil(disabledMeanwhile.id)).toBeNull();
    // Leased, so no claim takes it from this worker; the unleased one is claimable as ever.
    const claimed = await claimDeliveries(
      database.pool,
      asked.map((a) => ({ deliveryId: a.id, attempt: 1 })),
      CLAIM_MS,
    );
    expect(claimed.map((d) => d.id)).toEqual([asked[1]!.id]);
  });
});

describe('claimDeliveries', () => {
  it('leases, in one statement, each delivery whose claimed attempt is due and free, and no other', async () => {
    const active = await webhook();
    const disabled = await webhook(['*'], 'disabled');
    const due = await delivery(active.id);
    const retry = await delivery(active.id, { attemptCount: 2 });
    const held = await delivery(active.id, { lockedUntil: new Date(Date.now() + 60_000) });
    const settled = await delivery(active.id, { status: 'succeeded' });
    const paused = await delivery(disabled.id);
    const sample = await delivery(disabled.id, { test: true });

    const claimed = await claimDeliveries(
      database.pool,
      [
        { deliveryId: due.id, attempt: 1 },
        { deliveryId: retry.id, attempt: 3 },
        { deliveryId: retry.id, attempt: 2 },
        { deliveryId: held.id, attempt: 1 },
        { deliveryId: settled.id, attempt: 1 },
        { deliveryId: paused.id, attempt: 1 },
        { deliveryId: sample.id, attempt: 1 },
      ],
      CLAIM_MS,
    );
    expect(claimed.map((d) => [d.id, d.attemptCount]).sort()).toEqual(
      [
        [due.id, 0],
        [retry.id, 2],
        [sample.id, 0],
      ].sort(),
    );
    expect(claimed.find((d) => d.id === due.id)).toMatchObject({
      webhookId: active.id,
      url: active.url,
      secret: active.secret,
      body: '{}',
      test: false,
      eventCreatedAt: null,
    });
    expect(await claimDeliveries(database.pool, [{ deliveryId: due.id, attempt: 1 }], CLAIM_MS)).toEqual([]);
  });
});

describe('recordAttempts', () => {
  it('records many attempts and what follows each in one statement: settled, rescheduled, failed with the subscription disabled', async () => {
    const [kept, dropped] = [await webhook(), await webhook()];
    const [ok, again, last] = [await delivery(kept.id), await delivery(kept.id, { attemptCount: 1 }), await delivery(dropped.id, { attemptCount: 6 })];
    await claimDeliveries(
      database.pool,
      [
        { deliveryId: ok.id, attempt: 1 },
        { deliveryId: again.id, attempt: 2 },
        { deliveryId: last.id, attempt: 7 },
      ],
      CLAIM_MS,
    );
    const attemptedAt = new Date('2026-11-22T10:00:00.000Z');
    const nextAttemptAt = new Date('2026-11-22T10:05:00.000Z');
    const base = {
      attemptedAt,
      responseTimeMs: 12,
      responseBody: 'ok',
      responseHeaders: { 'content-type': 'text/plain' },
      nextAttemptAt: null,
      disableWebhook: false,
    };
    const records: AttemptRecord[] = [
      { ...base, attemptId: newId('attempt'), deliveryId: ok.id, webhookId: kept.id, attempt: 1, responseStatus: 200, error: null, status: 'succeeded' },
      {
        ...base,
        attemptId: newId('attempt'),
        deliveryId: again.id,
        webhookId: kept.id,
        attempt: 2,
        responseStatus: 500,
        error: 'http_status',
        status: 'pending',
        nextAttemptAt,
      },
      {
        ...base,
        attemptId: newId('attempt'),
        deliveryId: last.id,
        webhookId: dropped.id,
        attempt: 7,
        responseStatus: null,
        error: 'timeout',
        responseBody: null,
        responseHeaders: null,
        status: 'failed',
        disableWebhook: true,
      },
    ];
    await recordAttempts(database.pool, records);

    const after = await database.db.delivery.findMany({ where: { id: { in: [ok.id, again.id, last.id] } }, include: { attempts: true } });
    const byId = new Map(after.map((d) => [d.id, d]));
    expect(byId.get(ok.id)).toMatchObject({ status: 'succeeded', attemptCount: 1, lastAttemptAt: attemptedAt, lockedUntil: null, nextAttemptAt: null });
    expect(byId.get(again.id)).toMatchObject({ status: 'pending', attemptCount: 2, lockedUntil: null, nextAttemptAt });
    expect(byId.get(last.id)).toMatchObject({ status: 'failed', attemptCount: 7, lockedUntil: null });
    expect(byId.get(again.id)!.attempts).toEqual([
      {
        id: records[1]!.attemptId,
        deliveryId: again.id,
        attemptNumber: 2,
        attemptedAt,
        responseStatus: 500,
        responseTimeMs: 12,
        error: 'http_status',
        responseBody: 'ok',
        responseHeaders: { 'content-type': 'text/plain' },
      },
    ]);
    expect(byId.get(last.id)!.attempts[0]).toMatchObject({ responseStatus: null, error: 'timeout', responseBody: null, responseHeaders: null });
    expect((await database.db.webhook.findUniqueOrThrow({ where: { id: dropped.id } })).status).toBe('disabled');
    expect((await database.db.webhook.findUniqueOrThrow({ where: { id: kept.id } })).status).toBe('active');
  });
});

describe('the batch statements', () => {
  it('never read a batch through the status indexes, whatever the statistics say', async () => {
    // One connection with generic plans, the plans prepared statements settle on.
    const generic = new Pool({ connectionString: process.env.DATABASE_URL, max: 1, options: '-c plan_cache_mode=force_generic_plan' });
    try {
      // Statistics of a moment when everything had been delivered: nothing pending or undispatched.
      const { id: webhookId } = await webhook();
      await generic.query(
        `INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventType", body, status, "updatedAt")
         SELECT 'dlv_done_' || n, $1, 'live', $2, 'project.created', '{}', 'succeeded', now() FROM generate_series(1, 20000) AS n`,
        [org.organization.id, webhookId],
      );
      await generic.query(
        `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "dispatchedAt")
         SELECT 'evt_done_' || n, $1, 'live', 'project.created', '{}', now() FROM generate_series(1, 20000) AS n`,
        [org.organization.id],
      );
      await generic.query('ANALYZE "Delivery", "OutboxEvent"');
      await claimDeliveries(generic, [{ deliveryId: 'dlv_none', attempt: 1 }], CLAIM_MS);
      await undispatchedEvents(generic, ['evt_none']);
      await fanOutEvents(generic, ['evt_none'], [], CLAIM_MS);
      await firstAttemptsPending(generic, ['evt_none']);
      const plans = await Promise.all(
        [
          `"deliveries.claim"('{dlv_none}', '{1}', 1)`,
          `"outbox-events.undispatched"('{evt_none}')`,
          `"outbox-events.fan-out"('{evt_none}', '[]', 1)`,
          `"deliveries.first-attempts-pending"('{evt_none}')`,
        ].map(async (call) => (await generic.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${call}`)).rows.map((row) => row['QUERY PLAN']).join('\n')),
      );
      for (const plan of plans) expect(plan).not.toMatch(/Delivery_status_nextAttemptAt_idx|OutboxEvent_dispatchedAt_createdAt_idx/);
    } finally {
      await generic.end();
    }
  });
});
