import {
  claimDueDeliveries,
  countDueDeliveries,
  createDatabase,
  fanOutEvents,
  newId,
  recordAttempts,
  recordAttemptsAndClaim,
  releaseDeliveries,
  tenantData,
  undispatchedEvents,
  type AttemptRecord,
  type ClaimedDelivery,
  type Database,
  type Delivery,
  type Webhook,
} from '../src/index';
import { Pool } from 'pg';
import { createOrg, type TestOrg } from '@test-support/api-harness';

let database: Database;

beforeAll(async () => {
  database = createDatabase(process.env.DATABASE_URL!, { poolSize: 4 });
});
afterAll(() => database.close());

// A claim takes what is due in the whole database: each test claims only its own deliveries, those
// the tests before it left pending being failed first.
beforeEach(async () => {
  await database.pool.query(`UPDATE "Delivery" SET status = 'failed', "lockedUntil" = NULL WHERE status = 'pending'`);
});

const CLAIM_MS = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const ahead = (ms: number) => new Date(Date.now() + ms);
const idsOf = (rows: { id: string }[]) => rows.map((row) => row.id).sort();
const claim = async (limit = 100, pool = database.pool) => (await claimDueDeliveries(pool, limit, CLAIM_MS)).deliveries;

const newOrg = () => createOrg(database.db);

interface SubscriptionFields {
  events?: string[];
  status?: 'active' | 'disabled';
  disabledReason?: string | null;
  disabledAt?: Date | null;
  maxConcurrency?: number;
  rateLimit?: number | null;
  pausedUntil?: Date | null;
  previousSecret?: string | null;
  previousSecretExpiresAt?: Date | null;
}

async function subscription(org: TestOrg, fields: SubscriptionFields = {}): Promise<Webhook> {
  return database.db.webhook.create({
    data: {
      id: newId('webhook'),
      organizationId: org.organization.id,
      mode: 'live',
      url: `https://example.com/hooks/${newId('webhook')}`,
      events: ['*'],
      secret: `whsec-${newId('webhook')}`,
      ...fields,
    },
  });
}

async function event(org: TestOrg, type = 'project.created', traceparent: string | null = null) {
  return database.db.outboxEvent.create({
    data: { id: newId('event'), organizationId: org.organization.id, mode: 'live', type, data: { id: 'prj_1' }, traceparent },
  });
}

interface DeliveryFields {
  attemptCount?: number;
  attemptsBeforeRecovery?: number;
  status?: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt?: Date;
  lockedUntil?: Date;
  test?: boolean;
  eventId?: string;
  eventType?: string;
  body?: string;
}

/**
 * A delivery of the subscription's, pending and due a minute ago unless told otherwise; one made
 * leased counts in its subscription's `inFlight`, as a claim's does.
 */
async function pending(webhook: Webhook, fields: DeliveryFields = {}): Promise<Delivery> {
  if (fields.lockedUntil) await database.db.webhook.update({ where: { id: webhook.id }, data: { inFlight: { increment: 1 } } });
  return database.db.delivery.create({
    data: {
      id: newId('delivery'),
      organizationId: webhook.organizationId,
      mode: 'live',
      webhookId: webhook.id,
      eventType: 'project.created',
      body: '{}',
      nextAttemptAt: ago(60_000),
      ...fields,
    },
  });
}

/** `count` due deliveries of the subscription, the first due `dueAgoMs` ago and each next one a millisecond later; oldest first. */
async function backlog(webhook: Webhook, count: number, dueAgoMs = 60_000): Promise<string[]> {
  const first = Date.now() - dueAgoMs;
  const data = Array.from({ length: count }, (_, i) => ({
    id: newId('delivery'),
    organizationId: webhook.organizationId,
    mode: 'live' as const,
    webhookId: webhook.id,
    eventType: 'project.created',
    body: '{}',
    nextAttemptAt: new Date(first + i),
  }));
  await database.db.delivery.createMany({ data });
  return data.map((d) => d.id);
}

/** The subscriptions' attempts in flight: their deliveries leased now, which their `inFlight` counts. */
async function inFlight(webhooks: Webhook[]): Promise<number[]> {
  const { rows } = await database.pool.query<{ webhookId: string; n: number; counted: number }>(
    `SELECT w.id AS "webhookId", w."inFlight" AS counted,
       (SELECT count(*)::int FROM "Delivery" d WHERE d."webhookId" = w.id AND d."lockedUntil" > now()) AS n
     FROM "Webhook" w WHERE w.id = ANY ($1::text[])`,
    [webhooks.map((w) => w.id)],
  );
  for (const row of rows) expect(row.counted).toBe(row.n);
  return webhooks.map((w) => rows.find((row) => row.webhookId === w.id)?.n ?? 0);
}

const sum = (counts: number[]) => counts.reduce((total, n) => total + n, 0);

/** The record of a claimed delivery's attempt; a success unless told otherwise. */
function recordOf(delivery: ClaimedDelivery, fields: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    attemptId: newId('attempt'),
    deliveryId: delivery.id,
    webhookId: delivery.webhookId,
    attempt: delivery.attemptCount + 1,
    attemptedAt: new Date(),
    responseStatus: 200,
    responseTimeMs: 5,
    error: null,
    responseBody: 'ok',
    responseHeaders: null,
    status: 'succeeded',
    nextAttemptAt: null,
    disableWebhook: false,
    pauseWebhookUntil: null,
    ...fields,
  };
}

describe('fanOutEvents', () => {
  it('gives each event not yet dispatched a delivery per matching subscription, once, whoever else dispatches it', async () => {
    const org = await newOrg();
    const [all, projects, tasksOnly] = [
      await subscription(org, { events: ['*'] }),
      await subscription(org, { events: ['project.created'] }),
      await subscription(org, { events: ['task.created'] }),
    ];
    await subscription(org, { events: ['*'], status: 'disabled' });
    const [first, second] = [await event(org), await event(org)];

    const found = await undispatchedEvents(database.pool, [first.id, second.id]);
    expect(found.map((e) => [e.id, [...e.webhookIds].sort()])).toEqual(
      [first, second].map((e) => [e.id, [all.id, projects.id].sort()]).sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
    expect(found.flatMap((e) => e.webhookIds)).not.toContain(tasksOnly.id);

    const deliveries = found.flatMap((e) =>
      e.webhookIds.map((webhookId) => ({ id: newId('delivery'), eventId: e.id, webhookId, eventType: e.type, body: `{"e":"${e.id}"}` })),
    );
    const again = deliveries.map((d) => ({ ...d, id: newId('delivery') }));
    const [inserted, raced] = await Promise.all([
      fanOutEvents(database.pool, [first.id, second.id], deliveries),
      fanOutEvents(database.pool, [second.id, first.id], again),
    ]);
    // The event id of each delivery inserted, all by one of the two dispatchers.
    expect([inserted, raced].map((eventIds) => eventIds.length).sort()).toEqual([0, 4]);
    expect([...inserted, ...raced].sort()).toEqual([first.id, first.id, second.id, second.id].sort());
    expect(await database.db.delivery.count({ where: { eventId: { in: [first.id, second.id] } } })).toBe(4);
    expect(await undispatchedEvents(database.pool, [first.id, second.id])).toEqual([]);
    expect(
      await fanOutEvents(database.pool, [first.id], [{ id: newId('delivery'), eventId: first.id, webhookId: all.id, eventType: first.type, body: '{}' }]),
    ).toEqual([]);
  });

  it('inserts each delivery due at once and unleased, with its stored body, for the next claim to take', async () => {
    const org = await newOrg();
    const [one, two] = [await subscription(org), await subscription(org)];
    const created = await event(org, 'task.created');
    const asked = [one, two].map((w) => ({ id: newId('delivery'), eventId: created.id, webhookId: w.id, eventType: created.type, body: `{"to":"${w.id}"}` }));
    const before = Date.now();

    expect(await fanOutEvents(database.pool, [created.id], asked)).toEqual([created.id, created.id]);

    const rows = await database.db.delivery.findMany({ where: { eventId: created.id }, orderBy: { id: 'asc' } });
    expect(rows.map((d) => d.id)).toEqual(idsOf(asked));
    for (const row of rows) {
      expect(row).toMatchObject({
        organizationId: org.organization.id,
        mode: 'live',
        eventType: 'task.created',
        body: asked.find((a) => a.id === row.id)!.body,
        status: 'pending',
        test: false,
        attemptCount: 0,
        lockedUntil: null,
        lastAttemptAt: null,
      });
      // Postgres keeps milliseconds, rounded.
      expect(row.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before - 1);
      expect(row.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1);
    }
    expect(idsOf(await claim())).toEqual(idsOf(asked));
  });

  it('inserts each delivery due at once to the millisecond: a claim made right after finds it, every time', async () => {
    const org = await newOrg();
    const webhook = await subscription(org);
    for (let i = 0; i < 40; i++) {
      const created = await event(org);
      const delivery = { id: newId('delivery'), eventId: created.id, webhookId: webhook.id, eventType: created.type, body: '{}' };
      await fanOutEvents(database.pool, [created.id], [delivery]);
      expect(idsOf(await claim())).toEqual([delivery.id]);
      await database.db.delivery.update({ where: { id: delivery.id }, data: { status: 'succeeded', lockedUntil: null } });
      await database.db.webhook.update({ where: { id: webhook.id }, data: { inFlight: 0 } });
    }
  });

  it('marks an event with no subscription left dispatched, inserting nothing', async () => {
    const org = await newOrg();
    const lonely = await event(org);
    expect(await fanOutEvents(database.pool, [lonely.id], [])).toEqual([]);
    expect((await database.db.outboxEvent.findUniqueOrThrow({ where: { id: lonely.id } })).dispatchedAt).not.toBeNull();
    expect(await undispatchedEvents(database.pool, [lonely.id])).toEqual([]);
  });

  it('skips a subscription deleted meanwhile; one disabled meanwhile gets its delivery, which waits for it to be enabled again', async () => {
    const org = await newOrg();
    const [kept, deleted, disabled] = [await subscription(org), await subscription(org), await subscription(org)];
    const created = await event(org);
    const [found] = await undispatchedEvents(database.pool, [created.id]);
    expect([...found!.webhookIds].sort()).toEqual([kept.id, deleted.id, disabled.id].sort());
    await database.db.webhook.delete({ where: { id: deleted.id } });
    await database.db.webhook.update({ where: { id: disabled.id }, data: { status: 'disabled', disabledReason: 'manual', disabledAt: new Date() } });

    const inserted = await fanOutEvents(
      database.pool,
      [created.id],
      found!.webhookIds.map((webhookId) => ({ id: newId('delivery'), eventId: created.id, webhookId, eventType: created.type, body: '{}' })),
    );

    expect(inserted).toEqual([created.id, created.id]);
    const rows = await database.db.delivery.findMany({ where: { eventId: created.id } });
    expect(rows.map((d) => d.webhookId).sort()).toEqual([kept.id, disabled.id].sort());
    expect((await database.db.outboxEvent.findUniqueOrThrow({ where: { id: created.id } })).dispatchedAt).not.toBeNull();
    const claimed = await claim();
    expect(claimed.map((d) => d.webhookId)).toEqual([kept.id]);
    await database.db.webhook.update({ where: { id: disabled.id }, data: { status: 'active', disabledReason: null, disabledAt: null } });
    expect((await claim()).map((d) => d.webhookId)).toEqual([disabled.id]);
  });
});

describe("a tenant's deliveries inserted (recoveries, test sends)", () => {
  it("go to its own subscriptions only, due at once, and an event's once per subscription", async () => {
    const [org, other] = [await newOrg(), await newOrg()];
    const [own, foreign] = [await subscription(org), await subscription(other)];
    const past = await event(org, 'task.created');
    await fanOutEvents(database.pool, [past.id], []);
    const data = tenantData(database, { organizationId: org.organization.id, mode: 'live' }, { onCommitted: () => undefined });
    const row = (eventId: string | null) => ({ id: newId('delivery'), eventId, eventType: 'task.created', body: '{}', test: eventId === null });

    // An event dispatched long ago is not dispatched again: its recovered delivery goes in all the same.
    const recovered = row(past.id);
    expect(await data.deliveries.insert(own.id, [recovered, row(null)])).toHaveLength(2);
    expect(await data.deliveries.insert(own.id, [row(past.id)])).toEqual([]);
    expect(await data.deliveries.insert(foreign.id, [row(null)])).toEqual([]);

    expect(await database.db.delivery.findUniqueOrThrow({ where: { id: recovered.id } })).toMatchObject({
      organizationId: org.organization.id,
      mode: 'live',
      webhookId: own.id,
      status: 'pending',
      lockedUntil: null,
    });
    expect(await database.db.delivery.count({ where: { webhookId: foreign.id } })).toBe(0);
  });
});

describe('claimDueDeliveries', () => {
  it('leases each delivery that is pending, due and free, of an active subscription not paused or for a test, and no other', async () => {
    const org = await newOrg();
    const active = await subscription(org);
    const disabled = await subscription(org, { status: 'disabled', disabledReason: 'manual', disabledAt: new Date() });
    const paused = await subscription(org, { pausedUntil: ahead(3_600_000) });
    const pauseOver = await subscription(org, { pausedUntil: ago(1_000) });
    const claimable = [
      await pending(active),
      await pending(active, { attemptCount: 2 }),
      // Its worker died: the lease lapsed.
      await pending(active, { attemptCount: 1, lockedUntil: ago(1_000) }),
      await pending(pauseOver),
      await pending(disabled, { test: true }),
      await pending(paused, { test: true }),
    ];
    await pending(active, { nextAttemptAt: ahead(60_000) });
    await pending(active, { lockedUntil: ahead(60_000) });
    await pending(active, { status: 'succeeded' });
    await pending(active, { status: 'failed' });
    await pending(disabled);
    await pending(paused);
    const before = Date.now();

    const claimed = await claim();

    expect(idsOf(claimed)).toEqual(idsOf(claimable));
    const leased = await database.db.delivery.findMany({ where: { id: { in: idsOf(claimable) } } });
    for (const row of leased) {
      expect(row.lockedUntil!.getTime()).toBeGreaterThanOrEqual(before + CLAIM_MS - 1);
      expect(row.lockedUntil!.getTime()).toBeLessThanOrEqual(Date.now() + CLAIM_MS + 1);
    }
    expect(await claim()).toEqual([]);
  });

  it('returns what the attempt needs: the stored body, the attempts made, the signing secrets, when the event happened, what its span continues and links to', async () => {
    const org = await newOrg();
    const rotating = await subscription(org, { previousSecret: 'whsec-old', previousSecretExpiresAt: ahead(3_600_000) });
    const plain = await subscription(org, { status: 'disabled', disabledReason: 'manual', disabledAt: new Date() });
    const change = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const created = await event(org, 'task.created', change);
    const retried = await pending(rotating, {
      eventId: created.id,
      eventType: 'task.created',
      body: '{"id":"tsk_1"}',
      attemptCount: 3,
      attemptsBeforeRecovery: 2,
    });
    // Its attempts so far, the latest (the third) last: a retry's span links to that one.
    const spanOfAttempt = (n: number) => `00-0af7651916cd43dd8448eb211c80319c-00000000000000a${n}-01`;
    await database.db.deliveryAttempt.createMany({
      data: [3, 1, 2].map((n) => ({
        id: newId('attempt'),
        deliveryId: retried.id,
        attemptNumber: n,
        attemptedAt: ago(1_000 * (4 - n)),
        responseStatus: 500,
        responseTimeMs: 5,
        traceparent: spanOfAttempt(n),
      })),
    });
    const sample = await pending(plain, { test: true, eventType: 'task.updated', body: '{"test":true}' });

    const claimed = await claim();

    const byId = new Map(claimed.map((d) => [d.id, d]));
    expect(claimed).toHaveLength(2);
    // And the lease, as the delivery holds it: a release names it.
    const leases = new Map((await database.db.delivery.findMany({ where: { id: { in: [retried.id, sample.id] } } })).map((d) => [d.id, d.lockedUntil]));
    expect(byId.get(retried.id)).toEqual({
      id: retried.id,
      eventType: 'task.created',
      body: '{"id":"tsk_1"}',
      test: false,
      attemptsBeforeRecovery: 2,
      attemptCount: 3,
      webhookId: rotating.id,
      url: rotating.url,
      secret: rotating.secret,
      previousSecret: 'whsec-old',
      previousSecretExpiresAt: rotating.previousSecretExpiresAt,
      headersSealed: null,
      eventCreatedAt: created.createdAt,
      leasedUntil: leases.get(retried.id),
      ordered: false,
      organizationId: org.organization.id,
      eventTraceparent: change,
      lastAttemptTraceparent: spanOfAttempt(3),
    });
    expect(byId.get(sample.id)).toEqual({
      id: sample.id,
      eventType: 'task.updated',
      body: '{"test":true}',
      test: true,
      attemptsBeforeRecovery: 0,
      attemptCount: 0,
      webhookId: plain.id,
      url: plain.url,
      secret: plain.secret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      headersSealed: null,
      eventCreatedAt: null,
      leasedUntil: leases.get(sample.id),
      ordered: false,
      organizationId: org.organization.id,
      eventTraceparent: null,
      lastAttemptTraceparent: null,
    });
  });

  it('says whether deliveries are still due after it: held back by the limit or a cap, or none left', async () => {
    const org = await newOrg();
    const capped = await subscription(org, { maxConcurrency: 2 });
    await backlog(capped, 4);
    const claimOf = (limit: number) => claimDueDeliveries(database.pool, limit, CLAIM_MS);

    expect(await claimOf(1)).toMatchObject({ deliveries: [expect.objectContaining({ webhookId: capped.id })], moreDue: true });
    // One more under the cap, then nothing: the cap holds the other two back, and says so.
    expect(await claimOf(10)).toMatchObject({ deliveries: [expect.objectContaining({ webhookId: capped.id })], moreDue: true });
    expect(await claimOf(10)).toEqual({ deliveries: [], moreDue: true });

    const open = await subscription(await newOrg());
    await backlog(open, 2);
    expect((await claimOf(10)).deliveries.map((d) => d.webhookId)).toEqual([open.id, open.id]);
    // That organization has nothing left, but the capped subscription's two still wait.
    expect(await claimOf(10)).toEqual({ deliveries: [], moreDue: true });
    await database.db.delivery.deleteMany({ where: { webhookId: capped.id } });
    expect(await claimOf(10)).toEqual({ deliveries: [], moreDue: false });
  });

  it("holds a subscription to its maxConcurrency attempts in flight, the longest due first, until one's record frees a slot or its lease lapses", async () => {
    const org = await newOrg();
    const capped = await subscription(org, { maxConcurrency: 3 });
    const due = await backlog(capped, 10);

    const first = await claim();
    expect(idsOf(first)).toEqual(due.slice(0, 3));
    expect(await claim()).toEqual([]);
    expect(await inFlight([capped])).toEqual([3]);

    await recordAttempts(database.pool, [recordOf(first.find((d) => d.id === due[0])!)]);
    expect(idsOf(await claim())).toEqual([due[3]]);
    expect(await claim()).toEqual([]);

    // A worker that died: its lease lapses, and the delivery is due again, the longest due.
    await database.db.delivery.update({ where: { id: due[1] }, data: { lockedUntil: ago(1) } });
    expect(idsOf(await claim())).toEqual([due[1]]);
    expect(await inFlight([capped])).toEqual([3]);
  });

  it("finds a dead worker's lapsed leases among deliveries due at the same moment, however their rows moved: its cap never stalls", async () => {
    const capped = await subscription(await newOrg(), { maxConcurrency: 2 });
    // One fan-out: every delivery due at the same millisecond.
    const dueAt = ago(60_000);
    await Promise.all(Array.from({ length: 4 }, () => pending(capped, { nextAttemptAt: dueAt })));
    const leased = idsOf(await claim());
    expect(leased).toHaveLength(2);

    // Its worker died; an update that left its pages (a non-HOT one) moved their rows behind the others.
    await database.pool.query(
      `UPDATE "Delivery" SET "lockedUntil" = now() - interval '1 ms', "createdAt" = "createdAt" + interval '1 ms' WHERE id = ANY ($1)`,
      [leased],
    );
    expect(idsOf(await claim())).toEqual(leased);
    expect(await inFlight([capped])).toEqual([2]);
  });

  it('counts a lease once when two workers made the same attempt: the later record is refused and frees no second slot', async () => {
    const capped = await subscription(await newOrg(), { maxConcurrency: 1 });
    const [first, second] = await backlog(capped, 2);
    const [claimed] = await claim();
    expect(claimed!.id).toBe(first);

    await recordAttempts(database.pool, [recordOf(claimed!)]);
    await expect(recordAttempts(database.pool, [recordOf(claimed!)])).rejects.toThrow(/DeliveryAttempt_deliveryId_attemptNumber_key/);
    expect((await database.db.webhook.findUniqueOrThrow({ where: { id: capped.id } })).inFlight).toBe(0);
    expect(idsOf(await claim())).toEqual([second]);
    expect(await claim()).toEqual([]);
    expect(await inFlight([capped])).toEqual([1]);
  });

  it('holds an organization to the largest maxConcurrency of its subscriptions in flight in total, the least loaded subscription first', async () => {
    const org = await newOrg();
    const subscriptions = [];
    for (let i = 0; i < 5; i++) subscriptions.push(await subscription(org, { maxConcurrency: 2 }));
    // The first subscription's deliveries are the longest due, the next one's next, and so on.
    const due: string[][] = [];
    for (const [i, webhook] of subscriptions.entries()) due.push(await backlog(webhook, 3, 60_000 - i * 100));

    const first = await claim();
    // One attempt each of two subscriptions, though the first has two slots and the longest due.
    expect(idsOf(first)).toEqual([due[0]![0]!, due[1]![0]!].sort());
    expect(await claim()).toEqual([]);

    await recordAttempts(database.pool, [recordOf(first.find((d) => d.id === due[1]![0])!)]);
    // Not the first subscription's next, the longest due, while it has an attempt in flight: the freed one's.
    expect(idsOf(await claim())).toEqual([due[1]![1]!]);
    expect(sum(await inFlight(subscriptions))).toBe(2);
    expect(await claim()).toEqual([]);
  });

  it('leaves an organization another worker is claiming for to that worker, without waiting for it', async () => {
    const [claimedElsewhere, free] = [await newOrg(), await newOrg()];
    const [held] = await backlog(await subscription(claimedElsewhere), 1);
    const [other] = await backlog(await subscription(free), 1);
    const otherWorker = await database.pool.connect();
    try {
      await otherWorker.query('BEGIN');
      await otherWorker.query(`SELECT id FROM "Organization" WHERE id = $1 FOR NO KEY UPDATE`, [claimedElsewhere.organization.id]);
      expect(idsOf(await claim())).toEqual([other]);
      await otherWorker.query('ROLLBACK');
    } finally {
      otherWorker.release();
    }
    expect(idsOf(await claim())).toEqual([held]);
  });

  it('takes the deliveries of an organization whose rows are being written meanwhile (a project inserted, its key share taken)', async () => {
    const org = await newOrg();
    const [due] = await backlog(await subscription(org), 1);
    const writer = await database.pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO "Project" (id, "organizationId", mode, name, "updatedAt") VALUES ($1, $2, 'live', 'P', now())`, [
        newId('project'),
        org.organization.id,
      ]);
      expect(idsOf(await claim())).toEqual([due]);
      await writer.query('ROLLBACK');
    } finally {
      writer.release();
    }
  });

  it('serves the organizations in turn: a backlog of one does not hold back the few deliveries of another', async () => {
    const [busy, quiet] = [await newOrg(), await newOrg()];
    const busySubscription = await subscription(busy, { maxConcurrency: 50 });
    const quietSubscription = await subscription(quiet);
    // The backlog is older: the longest due alone would take four of it.
    const backlogged = await backlog(busySubscription, 50, 120_000);
    const few = await backlog(quietSubscription, 2, 60_000);

    expect(idsOf(await claim(4))).toEqual([...backlogged.slice(0, 2), ...few].sort());
  });

  it('serves the organizations in turn however many subscriptions each has', async () => {
    const [wide, narrow] = [await newOrg(), await newOrg()];
    const oldest: string[] = [];
    for (let i = 0; i < 20; i++) oldest.push(...(await backlog(await subscription(wide), 1, 120_000 - i)));
    const single = await backlog(await subscription(narrow), 1, 60_000);

    expect(idsOf(await claim(2))).toEqual([oldest[0]!, single[0]!].sort());
  });

  it('serves the least loaded organization first: one with attempts in flight waits for an idle one', async () => {
    const [loaded, idle] = [await newOrg(), await newOrg()];
    const loadedDue = await backlog(await subscription(loaded), 5, 120_000);
    expect(idsOf(await claim(2))).toEqual(loadedDue.slice(0, 2));
    const idleDue = await backlog(await subscription(idle), 3, 60_000);

    expect(idsOf(await claim(2))).toEqual(idleDue.slice(0, 2));
    // Two in flight each: one each.
    expect(idsOf(await claim(2))).toEqual([loadedDue[2]!, idleDue[2]!].sort());
  });

  it("takes no more than the whole tokens of a subscription's rate-limit bucket, which holds half a second's worth, at least one", async () => {
    // rateLimit 2: a bucket of max(1, 2/2) = 1 token, however many are due and however high the cap.
    const slow = await subscription(await newOrg(), { rateLimit: 2, maxConcurrency: 10 });
    await backlog(slow, 10);
    expect(await claim()).toHaveLength(1);
    const charged = await database.db.webhook.findUniqueOrThrow({ where: { id: slow.id } });
    expect(charged.rateTokens).toBe(0);
    expect(charged.rateTokensAt).not.toBeNull();
  });

  it('refills the bucket at rateLimit tokens a second', async () => {
    const trickle = await subscription(await newOrg(), { rateLimit: 1 });
    await backlog(trickle, 5);
    expect(await claim()).toHaveLength(1);
    expect(await claim()).toEqual([]);
    // A second later (the bucket's clock moved back rather than waited out), one token more.
    await database.pool.query(`UPDATE "Webhook" SET "rateTokensAt" = "rateTokensAt" - interval '1 second' WHERE id = $1`, [trickle.id]);
    expect(await claim()).toHaveLength(1);
    expect(await claim()).toEqual([]);
    expect(await inFlight([trickle])).toEqual([2]);
  });

  it('refills the bucket to its capacity and no more, however long it waited', async () => {
    // rateLimit 20: a bucket of 10.
    const fast = await subscription(await newOrg(), { rateLimit: 20, maxConcurrency: 30 });
    await backlog(fast, 30);
    expect(await claim()).toHaveLength(10);
    await database.pool.query(`UPDATE "Webhook" SET "rateTokensAt" = "rateTokensAt" - interval '10 seconds' WHERE id = $1`, [fast.id]);
    expect(await claim()).toHaveLength(10);
    expect(await inFlight([fast])).toEqual([20]);
  });

  it("takes nothing of a paused subscription's but its test deliveries, until the pause ends", async () => {
    const paused = await subscription(await newOrg(), { pausedUntil: ahead(3_600_000) });
    const waiting = await backlog(paused, 3);
    const sample = await pending(paused, { test: true });

    expect(idsOf(await claim())).toEqual([sample.id]);
    expect(await claim()).toEqual([]);
    await database.db.webhook.update({ where: { id: paused.id }, data: { pausedUntil: ago(1) } });
    expect(idsOf(await claim())).toEqual(waiting);
  });

  it('never leases a delivery twice nor exceeds a cap when workers claim at the same time', async () => {
    const [one, two, three, four] = [await newOrg(), await newOrg(), await newOrg(), await newOrg()];
    const single = await subscription(one, { maxConcurrency: 3 });
    const many = [
      await subscription(two, { maxConcurrency: 2 }),
      await subscription(two, { maxConcurrency: 2 }),
      await subscription(two, { maxConcurrency: 2 }),
    ];
    const short = await subscription(three, { maxConcurrency: 5 });
    const mixed = [await subscription(four, { maxConcurrency: 1 }), await subscription(four, { maxConcurrency: 4 })];
    await backlog(single, 20);
    for (const webhook of many) await backlog(webhook, 5);
    await backlog(short, 4);
    for (const webhook of mixed) await backlog(webhook, 10);
    const caps = { single: 3, many: 2, short: 4, mixed: 4 };

    const workers = Array.from({ length: 6 }, () => new Pool({ connectionString: process.env.DATABASE_URL, max: 1 }));
    try {
      const leased: string[] = [];
      for (let round = 0; round < 20; round++) {
        const claims = await Promise.all(workers.map((worker) => claim(3, worker)));
        const claimed = claims.flat();
        leased.push(...claimed.map((d) => d.id));
        const [singleNow, manyNow, shortNow, mixedNow] = [await inFlight([single]), await inFlight(many), await inFlight([short]), await inFlight(mixed)];
        expect(sum(singleNow)).toBeLessThanOrEqual(caps.single);
        expect(sum(manyNow)).toBeLessThanOrEqual(caps.many);
        expect(sum(shortNow)).toBeLessThanOrEqual(caps.short);
        expect(sum(mixedNow)).toBeLessThanOrEqual(caps.mixed);
        expect(mixedNow[0]).toBeLessThanOrEqual(1);
        // The worker that locks an organization claims for it: a round that takes nothing finds every cap reached.
        if (claimed.length === 0) break;
      }
      expect(new Set(leased).size).toBe(leased.length);
      expect(leased).toHaveLength(caps.single + caps.many + caps.short + caps.mixed);
      expect([sum(await inFlight([single])), sum(await inFlight(many)), sum(await inFlight([short])), sum(await inFlight(mixed))]).toEqual([
        caps.single,
        caps.many,
        caps.short,
        caps.mixed,
      ]);
    } finally {
      await Promise.all(workers.map((worker) => worker.end()));
    }
  });
});

describe('recordAttempts', () => {
  it('records many attempts and what follows each in one statement: settled, rescheduled, failed with the subscription disabled', async () => {
    const org = await newOrg();
    const [kept, dropped] = [await subscription(org), await subscription(org)];
    const [ok, again, last] = [await pending(kept), await pending(kept, { attemptCount: 1 }), await pending(dropped, { attemptCount: 6 })];
    expect(idsOf(await claim())).toEqual(idsOf([ok, again, last]));
    const attemptedAt = new Date('2026-11-22T10:00:00.000Z');
    const nextAttemptAt = ahead(300_000);
    const base = {
      attemptedAt,
      responseTimeMs: 12,
      responseBody: 'ok',
      responseHeaders: { 'content-type': 'text/plain' },
      nextAttemptAt: null,
      disableWebhook: false,
      pauseWebhookUntil: null,
    };
    const records: AttemptRecord[] = [
      { ...base, attemptId: newId('attempt'), deliveryId: ok.id, webhookId: kept.id, attempt: 1, responseStatus: 200, error: null, status: 'succeeded' },
      {
        ...base,
        attemptId: newId('attempt'),
        deliveryId: again.id,
        webhookId: kept.id,
        attempt: 2,
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        requestHeaders: { 'webhook-id': again.id, Authorization: '****' },
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
        requestHeaders: { 'webhook-id': again.id, Authorization: '****' },
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      },
    ]);
    expect(byId.get(last.id)!.attempts[0]).toMatchObject({
      responseStatus: null,
      error: 'timeout',
      responseBody: null,
      responseHeaders: null,
      requestHeaders: null,
      traceparent: null,
    });
    expect(await database.db.webhook.findUniqueOrThrow({ where: { id: dropped.id } })).toMatchObject({
      status: 'disabled',
      disabledReason: 'delivery_failures',
      disabledAt: expect.any(Date),
      pausedUntil: null,
    });
    expect(await database.db.webhook.findUniqueOrThrow({ where: { id: kept.id } })).toMatchObject({
      status: 'active',
      disabledReason: null,
      pausedUntil: null,
    });
    // The retry is due at its time, not before.
    expect(await claim()).toEqual([]);
  });

  it("pauses the subscription until a receiver's Retry-After, keeping the later of two pauses", async () => {
    const org = await newOrg();
    const [busy, other] = [await subscription(org), await subscription(org)];
    for (let i = 0; i < 5; i++) await pending(busy);
    await pending(other);
    const claimed = await claim();
    const ofBusy = claimed.filter((d) => d.webhookId === busy.id);
    expect(ofBusy).toHaveLength(5);
    const [tenMinutes, fiveMinutes, twentyMinutes, twelveMinutes] = [ahead(600_000), ahead(300_000), ahead(1_200_000), ahead(720_000)];
    const pausedUntil = async () => (await database.db.webhook.findUniqueOrThrow({ where: { id: busy.id } })).pausedUntil;
    const retry = (d: ClaimedDelivery, pauseWebhookUntil: Date | null) =>
      recordOf(d, { responseStatus: 429, error: 'http_status', status: 'pending', nextAttemptAt: ahead(600_000), pauseWebhookUntil });

    await recordAttempts(database.pool, [retry(ofBusy[0]!, tenMinutes)]);
    expect(await pausedUntil()).toEqual(tenMinutes);
    await recordAttempts(database.pool, [retry(ofBusy[1]!, fiveMinutes)]);
    expect(await pausedUntil()).toEqual(tenMinutes);
    await recordAttempts(database.pool, [recordOf(ofBusy[2]!)]);
    expect(await pausedUntil()).toEqual(tenMinutes);
    // Two records of one statement: the later pause.
    await recordAttempts(database.pool, [retry(ofBusy[3]!, twentyMinutes), retry(ofBusy[4]!, twelveMinutes)]);
    expect(await pausedUntil()).toEqual(twentyMinutes);

    expect(await database.db.webhook.findUniqueOrThrow({ where: { id: busy.id } })).toMatchObject({ status: 'active', disabledReason: null, disabledAt: null });
    expect((await database.db.webhook.findUniqueOrThrow({ where: { id: other.id } })).pausedUntil).toBeNull();
    // Paused: its delivery made due again waits; the other subscription's do not.
    await database.db.delivery.update({ where: { id: ofBusy[0]!.id }, data: { nextAttemptAt: ago(1) } });
    const otherDue = await pending(other);
    expect(idsOf(await claim())).toEqual([otherDue.id]);
  });

  it('pauses a subscription disabled by hand without touching why and when it was disabled', async () => {
    const org = await newOrg();
    const disabledAt = new Date('2026-11-20T08:00:00.000Z');
    const byHand = await subscription(org, { status: 'disabled', disabledReason: 'manual', disabledAt });
    const [sample, another] = [await pending(byHand, { test: true }), await pending(byHand, { test: true })];
    const claimed = await claim();
    expect(idsOf(claimed)).toEqual(idsOf([sample, another]));
    const until = ahead(120_000);

    await recordAttempts(database.pool, [
      recordOf(claimed[0]!, { responseStatus: 503, error: 'http_status', status: 'failed', pauseWebhookUntil: until }),
      // Even a record that would disable it (a last retry failed) leaves a subscription disabled by hand as it was.
      recordOf(claimed[1]!, { responseStatus: 500, error: 'http_status', status: 'failed', disableWebhook: true }),
    ]);

    expect(await database.db.webhook.findUniqueOrThrow({ where: { id: byHand.id } })).toMatchObject({
      status: 'disabled',
      disabledReason: 'manual',
      disabledAt,
      pausedUntil: until,
    });
  });
});

describe('recordAttemptsAndClaim', () => {
  it('records, then claims with the slots the record freed, in one statement; a record refused claims nothing', async () => {
    const capped = await subscription(await newOrg(), { maxConcurrency: 1 });
    const [first, second, third] = await backlog(capped, 3);
    const [claimed] = await claim();
    expect(claimed!.id).toBe(first);
    expect(await claim()).toEqual([]);

    const refilled = await recordAttemptsAndClaim(database.pool, [recordOf(claimed!)], 10, CLAIM_MS);
    expect(refilled.deliveries).toEqual([expect.objectContaining({ id: second, webhookId: capped.id, attemptCount: 0, url: capped.url })]);
    expect(refilled.moreDue).toBe(true);
    expect(await database.db.delivery.findUniqueOrThrow({ where: { id: first } })).toMatchObject({ status: 'succeeded', lockedUntil: null });
    expect(await inFlight([capped])).toEqual([1]);

    // The second record of an attempt is refused: the whole statement with it, the other record and the claim.
    await expect(recordAttemptsAndClaim(database.pool, [recordOf(refilled.deliveries[0]!), recordOf(claimed!)], 10, CLAIM_MS)).rejects.toThrow(
      /DeliveryAttempt_deliveryId_attemptNumber_key/,
    );
    expect(await database.db.delivery.findUniqueOrThrow({ where: { id: second } })).toMatchObject({ status: 'pending', attemptCount: 0 });
    expect(await database.db.delivery.findUniqueOrThrow({ where: { id: third } })).toMatchObject({ lockedUntil: null });
    expect(await inFlight([capped])).toEqual([1]);

    const last = await recordAttemptsAndClaim(database.pool, [recordOf(refilled.deliveries[0]!)], 10, CLAIM_MS);
    expect(idsOf(last.deliveries)).toEqual([third]);
    expect((await recordAttemptsAndClaim(database.pool, [recordOf(last.deliveries[0]!)], 10, CLAIM_MS)).deliveries).toEqual([]);
    expect(await inFlight([capped])).toEqual([0]);
  });
});

/**
 * One connection with generic plans, whose statements' plans, those run inside functions included,
 * auto_explain sends as notices, collected in `explained`.
 */
function explainingPool() {
  const generic = new Pool({
    connectionString: process.env.DATABASE_URL,
    max: 1,
    options:
      '-c plan_cache_mode=force_generic_plan -c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 -c auto_explain.log_nested_statements=on -c auto_explain.log_level=notice',
  });
  const explained: string[] = [];
  generic.on('connect', (client) => client.on('notice', (notice) => explained.push(notice.message ?? '')));
  return { generic, explained };
}

describe('the batch statements', () => {
  it('never read a batch through the status indexes, whatever the statistics say', async () => {
    // One connection with generic plans, the plans prepared statements settle on; the claim's own
    // statements, run inside its function, are shown by auto_explain as notices.
    const { generic, explained } = explainingPool();
    try {
      // Statistics of a moment when everything had been delivered: nothing pending or undispatched.
      const org = await newOrg();
      const webhook = await subscription(org);
      await generic.query(
        `INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventType", body, status, "nextAttemptAt", "updatedAt")
         SELECT 'dlv_done_' || n, $1, 'live', $2, 'project.created', '{}', 'succeeded', now() - interval '1 hour', now() FROM generate_series(1, 20000) AS n`,
        [org.organization.id, webhook.id],
      );
      await generic.query(
        `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "dispatchedAt")
         SELECT 'evt_done_' || n, $1, 'live', 'project.created', '{}', now() FROM generate_series(1, 20000) AS n`,
        [org.organization.id],
      );
      await generic.query('ANALYZE "Delivery", "OutboxEvent", "Webhook", "Organization"');
      // One delivery due, so that the claim runs both its statements.
      const due = await pending(webhook);
      explained.length = 0;
      expect(idsOf((await claimDueDeliveries(generic, 1, 1)).deliveries)).toEqual([due.id]);
      const claimPlans = explained.filter((plan) => plan.includes('"Delivery"'));
      expect(claimPlans.length).toBeGreaterThanOrEqual(2);
      // The claim finds the subscriptions with pending deliveries by a skip scan of the index made for it.
      expect(claimPlans.join('\n')).toMatch(/Recursive Union[\s\S]*Delivery_pending_webhookId_nextAttemptAt_idx/);

      // The record's statement runs inside its function too.
      explained.length = 0;
      await recordAttempts(generic, []);
      const recordPlans = explained.filter((plan) => plan.includes('"Delivery"'));
      expect(recordPlans).toHaveLength(1);
      await undispatchedEvents(generic, ['evt_none']);
      await fanOutEvents(generic, ['evt_none'], []);
      const plans = await Promise.all(
        [`"outbox-events.undispatched"('{evt_none}')`, `"deliveries.insert"('{evt_none}', '[]', NULL, NULL)`].map(async (call) =>
          (await generic.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${call}`)).rows.map((row) => row['QUERY PLAN']).join('\n'),
        ),
      );
      for (const plan of [...claimPlans, ...recordPlans, ...plans]) {
        expect(plan).not.toMatch(/OutboxEvent_dispatchedAt_createdAt_idx/);
        expect(plan).not.toMatch(/Seq Scan on "(Delivery|OutboxEvent)"/);
      }
    } finally {
      await generic.end();
    }
  });
});

describe("the claim's read of a retried delivery's last attempt", () => {
  it('finds it by its key with a plan made while there were no attempts', async () => {
    // The claim's generic plan made on a new database, before any attempt, and kept while the attempts
    // grow, statistics not taken since (autovacuum off): the lookup must still probe the attempts' key,
    // not read them all for each delivery claimed. Its statements are shown by auto_explain as notices.
    const { generic, explained } = explainingPool();
    const webhook = await subscription(await newOrg());
    try {
      await generic.query('DELETE FROM "Delivery"');
      await generic.query('VACUUM ANALYZE "Delivery", "DeliveryAttempt"');
      await pending(webhook);
      expect(await claimDueDeliveries(generic, 1, CLAIM_MS)).toMatchObject({ deliveries: [{ attemptCount: 0, lastAttemptTraceparent: null }] });
      await generic.query(
        `WITH tried AS (
           INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventType", body, status, "attemptCount", "updatedAt")
           SELECT 'dlv_tried_' || n, $1, 'live', $2, 'project.created', '{}', 'succeeded', 1, now() FROM generate_series(1, 20000) AS n
           RETURNING id
         )
         INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "attemptedAt", "responseStatus", "responseTimeMs")
         SELECT 'att_' || id, id, 1, now(), 200, 1 FROM tried`,
        [webhook.organizationId, webhook.id],
      );
      const retried = await pending(webhook, { attemptCount: 1 });
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      await database.db.deliveryAttempt.create({
        data: { id: newId('attempt'), deliveryId: retried.id, attemptNumber: 1, attemptedAt: ago(1_000), responseStatus: 500, responseTimeMs: 1, traceparent },
      });
      explained.length = 0;
      expect(await claimDueDeliveries(generic, 1, CLAIM_MS)).toMatchObject({ deliveries: [{ id: retried.id, lastAttemptTraceparent: traceparent }] });
      const lookup = explained.filter((plan) => plan.includes('DeliveryAttempt'));
      expect(lookup).toHaveLength(1);
      expect(lookup[0]).toMatch(/DeliveryAttempt_deliveryId_attemptNumber_key[^\n]*\n\s*Index Cond: \(\("deliveryId" = c\.id\)/);
    } finally {
      await generic.end();
    }
  });
});

describe('the record and the release', () => {
  it('find their deliveries by primary key with plans made while the table was small', async () => {
    // Generic plans made on a young database (the 600 deliveries of a warm-up, statistics taken) and kept while it
    // grows, statistics not taken since (autovacuum off).
    // The record's statement, run inside its function, is shown by auto_explain as a notice.
    const { generic, explained } = explainingPool();
    const deliveries = (from: number, to: number) =>
      generic.query(
        `INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventType", body, status, "nextAttemptAt", "updatedAt")
         SELECT 'dlv_grown_' || n, $1, 'live', $2, 'project.created', repeat('x', 700), 'succeeded', now(), now() FROM generate_series($3::int, $4::int) AS n`,
        [webhook.organizationId, webhook.id, from, to],
      );
    const webhook = await subscription(await newOrg());
    try {
      await generic.query('DELETE FROM "Delivery"');
      await deliveries(1, 600);
      await generic.query('VACUUM ANALYZE "Delivery"');
      await recordAttempts(generic, []);
      await releaseDeliveries(generic, []);
      await deliveries(601, 20_000);
      explained.length = 0;
      await recordAttempts(generic, []);
      const recordPlan = explained.filter((plan) => plan.includes('"Delivery"'));
      expect(recordPlan).toHaveLength(1);
      const releasePlan = (await generic.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE "deliveries.release"('[]', '{}')`)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
      for (const plan of [...recordPlan, releasePlan]) {
        expect(plan).toMatch(/Delivery_pkey/);
        expect(plan).not.toMatch(/Seq Scan on "Delivery"/);
      }
    } finally {
      await generic.end();
    }
  });
});

describe('countDueDeliveries', () => {
  it('counts the pending deliveries due and unleased, up to the cap', async () => {
    const webhook = await subscription(await newOrg());
    await backlog(webhook, 5);
    await pending(webhook, { nextAttemptAt: ahead(60_000) });
    await pending(webhook, { lockedUntil: ahead(60_000) });
    await pending(webhook, { status: 'succeeded' });
    expect(await countDueDeliveries(database.pool, 100)).toBe(5);
    expect(await countDueDeliveries(database.pool, 3)).toBe(3);
  });
});
