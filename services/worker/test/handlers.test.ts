import { randomUUID } from 'node:crypto';
import { createLogger } from '@worktrack/config';
import { newId } from '@worktrack/db';
import { createMetricsRegistry } from '@worktrack/metrics';
import { createRedisConnection, JobScheduler } from '@worktrack/queue';
import { WebhookDeliverer } from '@worktrack/webhooks';
import { as, createHarness, createOrg, waitFor, type Harness } from '../../api/test/support/harness';
import type { WorkerDeps } from '../src/deps';
import { AttemptSlots } from '../src/attempt-slots';
import { DeliveryMetrics } from '../src/delivery-metrics';
import { deliveryHandler, type DeliverWebhook } from '../src/handlers/deliver-webhook';
import { dispatchHandler, type DispatchEvent } from '../src/handlers/dispatch-event';
import { sweep } from '../src/sweep';
import { receiversClosedAfterEach } from './support/receiver';

// The handlers called directly, with no worker consuming the queues, to show what makes
// duplicate and stale jobs harmless.
let h: Harness;
let deps: WorkerDeps;
let dispatchEvent: DispatchEvent;
/** A fan-out that leaves the first attempts to the test, as a worker killed right after its fan-out committed. */
let fanOutOnly: DispatchEvent;
let deliverWebhook: DeliverWebhook;
let producer: ReturnType<typeof createRedisConnection>;
const policy = { retryDelaysMs: [60_000], claimMs: 5_000 };

beforeAll(() => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', REDIS_PREFIX: `wt-test-${randomUUID().slice(0, 8)}` });
  producer = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker', 'test-handlers');
  deps = {
    db: h.db,
    sql: h.deps.sql,
    jobs: new JobScheduler(producer, h.deps.config.redisPrefix, () => undefined),
    deliverer: new WebhookDeliverer({ timeoutMs: 2_000, allowedHosts: ['127.0.0.1'] }),
    logger: createLogger('silent', 'test'),
    metrics: new DeliveryMetrics(createMetricsRegistry()),
    secrets: h.deps.secrets,
  };
  const slots = new AttemptSlots(50);
  const delivery = deliveryHandler(deps, policy, slots);
  deliverWebhook = delivery.deliverWebhook;
  dispatchEvent = dispatchHandler(deps, policy, slots, delivery);
  fanOutOnly = dispatchHandler(deps, policy, noFreeSlot(), { deliverWebhook: async () => undefined, attemptLeased: async () => undefined });
});
afterAll(async () => {
  await deps.jobs.close();
  await deps.deliverer.close();
  producer.disconnect();
  await h.close();
});

/** The names of the prepared statements run on the handlers' pool from now until the returned function is called. */
function statementsRun(): () => (string | undefined)[] {
  const query = jest.spyOn(deps.sql, 'query');
  return () => {
    const names = query.mock.calls.map(([config]: unknown[]) =>
      typeof config === 'object' && config !== null && 'name' in config ? String(config.name) : undefined,
    );
    query.mockRestore();
    return names;
  };
}

/** Slots all taken, until the one there is is released. */
function noFreeSlot(): AttemptSlots {
  const slots = new AttemptSlots(1);
  expect(slots.tryReserve()).toBe(true);
  return slots;
}

const receiverFor = receiversClosedAfterEach();

async function subscribedEvent(url: string) {
  const org = await createOrg(h.db);
  const webhookId = (await as(h.app, org.liveKey).post('/v1/webhooks', { url, events: ['project.created'] })).body.id as string;
  await as(h.app, org.liveKey).post('/v1/projects', { name: 'P' }).expect(201);
  const event = await h.db.outboxEvent.findFirstOrThrow({ where: { organizationId: org.organization.id } });
  return { org, webhookId, eventId: event.id };
}

describe('dispatch-event', () => {
  it('fans an event out once, however often it is dispatched', async () => {
    const { webhookId, eventId } = await subscribedEvent('http://127.0.0.1:9/never');
    const counts = await Promise.all([fanOutOnly({ eventIds: [eventId] }), fanOutOnly({ eventIds: [eventId] })]);
    expect(counts.sort()).toEqual([0, 1]);
    expect(await fanOutOnly({ eventIds: [eventId] })).toBe(0);
    expect(await h.db.delivery.count({ where: { webhookId } })).toBe(1);
    expect((await h.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } })).dispatchedAt).not.toBeNull();
  });

  it('makes the first attempts itself, leased by the fan-out, with no delivery job, and gives their slots back', async () => {
    const receiver = await receiverFor();
    const { org, webhookId, eventId } = await subscribedEvent(receiver.url);
    const second = (await as(h.app, org.liveKey).post('/v1/webhooks', { url: receiver.url, events: ['project.created'] })).body.id as string;
    const slots = new AttemptSlots(2);
    const statements = statementsRun();
    expect(await dispatchHandler(deps, policy, slots, deliveryHandler(deps, policy, slots))({ eventIds: [eventId] })).toBe(2);
    expect(statements()).not.toContain('deliveries.claim');

    const made = await h.db.delivery.findMany({ where: { webhookId: { in: [webhookId, second] } }, include: { attempts: true } });
    expect(made.map((d) => [d.status, d.attemptCount, d.lockedUntil, d.attempts.length])).toEqual([
      ['succeeded', 1, null, 1],
      ['succeeded', 1, null, 1],
    ]);
    expect(receiver.received).toHaveLength(2);
    for (const d of made) expect(await deps.jobs.deliveries.getJob(`${d.id}-1`)).toBeUndefined();
    expect([slots.tryReserve(), slots.tryReserve(), slots.tryReserve()]).toEqual([true, true, false]);
  });

  it('fans the events of one job out in one statement and makes all their first attempts, once', async () => {
    const receiver = await receiverFor();
    const events = await Promise.all([subscribedEvent(receiver.url), subscribedEvent(receiver.url), subscribedEvent(receiver.url)]);
    const eventIds = events.map((e) => e.eventId);
    const statements = statementsRun();
    expect(await dispatchEvent({ eventIds })).toBe(3);
    expect(statements().filter((name) => name === 'outbox-events.fan-out')).toHaveLength(1);
    expect(await h.db.delivery.findMany({ where: { eventId: { in: eventIds } }, select: { status: true } })).toEqual(
      eventIds.map(() => ({ status: 'succeeded' })),
    );
    expect(await dispatchEvent({ eventIds })).toBe(0);
    expect(receiver.received).toHaveLength(3);
  });

  it("makes the first attempts of a job's other events when one event's fan-out fails, then fails, with every slot given back", async () => {
    const receiver = await receiverFor();
    const [made, refused] = await Promise.all([subscribedEvent(receiver.url), subscribedEvent(receiver.url)]);
    const query = deps.sql.query.bind(deps.sql);
    const failing = jest.spyOn(deps.sql, 'query').mockImplementation(((config: { name?: string; values?: unknown[] }, ...rest: unknown[]) => {
      const ids = config.name === 'outbox-events.fan-out' ? (config.values![0] as string[]) : [];
      if (ids.includes(refused!.eventId)) return Promise.reject(new Error('fan-out refused'));
      return (query as (...args: unknown[]) => unknown)(config, ...rest);
    }) as typeof deps.sql.query);
    const slots = new AttemptSlots(2);
    try {
      await expect(dispatchHandler(deps, policy, slots, deliveryHandler(deps, policy, slots))({ eventIds: [made!.eventId, refused!.eventId] })).rejects.toThrow(
        'fan-out refused',
      );
    } finally {
      failing.mockRestore();
    }
    expect(await h.db.delivery.findFirstOrThrow({ where: { eventId: made!.eventId } })).toMatchObject({ status: 'succeeded', lockedUntil: null });
    expect(await h.db.delivery.count({ where: { eventId: refused!.eventId } })).toBe(0);
    expect(receiver.received).toHaveLength(1);
    expect([slots.tryReserve(), slots.tryReserve()]).toEqual([true, true]);
  });

  it('leases no first attempt while no slot is free: the attempt waits for one, then claims it', async () => {
    const receiver = await receiverFor();
    const { webhookId, eventId } = await subscribedEvent(receiver.url);
    const slots = noFreeSlot();
    const dispatching = dispatchHandler(deps, policy, slots, deliveryHandler(deps, policy, slots))({ eventIds: [eventId] });
    const waiting = await waitFor(() => h.db.delivery.findFirst({ where: { webhookId } }).then((d) => d ?? undefined));
    expect(waiting).toMatchObject({ status: 'pending', attemptCount: 0, lockedUntil: null });

    const statements = statementsRun();
    slots.release();
    expect(await dispatching).toBe(1);
    expect(statements()).toContain('deliveries.claim');
    expect(await h.db.delivery.findUniqueOrThrow({ where: { id: waiting.id } })).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(receiver.received).toHaveLength(1);
  });

  it('run again for an event fanned out by a worker that died, makes the first attempts it left, once', async () => {
    const receiver = await receiverFor();
    const { webhookId, eventId } = await subscribedEvent(receiver.url);
    await fanOutOnly({ eventIds: [eventId] });
    expect(await dispatchEvent({ eventIds: [eventId] })).toBe(0);
    expect(await h.db.delivery.findFirstOrThrow({ where: { webhookId } })).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(await dispatchEvent({ eventIds: [eventId] })).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it("run again while the dead worker's claim on a first attempt runs, leaves the attempt to a job due when the claim ends", async () => {
    const receiver = await receiverFor();
    const { webhookId, eventId } = await subscribedEvent(receiver.url);
    await fanOutOnly({ eventIds: [eventId] });
    const { id: deliveryId } = await h.db.delivery.update({
      where: { eventId_webhookId: { eventId, webhookId } },
      data: { lockedUntil: new Date(Date.now() + 60_000) },
    });
    await dispatchEvent({ eventIds: [eventId] });
    const job = (await deps.jobs.deliveries.getJob(`${deliveryId}-1`))!;
    expect(await job.getState()).toBe('delayed');
    expect(job.opts.delay).toBeGreaterThan(55_000);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('deliver-webhook', () => {
  it('makes an attempt once when its job runs twice at the same time; the other run learns how long the claim holds', async () => {
    const receiver = await receiverFor();
    const { webhookId, eventId } = await subscribedEvent(receiver.url);
    await fanOutOnly({ eventIds: [eventId] });
    const delivery = await h.db.delivery.findFirstOrThrow({ where: { webhookId } });
    const runs = await Promise.all([deliverWebhook({ deliveryId: delivery.id, attempt: 1 }), deliverWebhook({ deliveryId: delivery.id, attempt: 1 })]);
    expect(runs).toContainEqual(undefined);
    expect(runs).toContainEqual({ heldForMs: expect.any(Number) });
    const held = runs.find((run) => run !== undefined)!.heldForMs;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(policy.claimMs);
    expect(await deliverWebhook({ deliveryId: delivery.id, attempt: 1 })).toBeUndefined();
    expect(receiver.received).toHaveLength(1);
    const settled = await h.db.delivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attempts: true } });
    expect(settled).toMatchObject({ status: 'succeeded', attemptCount: 1, lockedUntil: null });
    expect(settled.attempts).toHaveLength(1);
  });

  it('makes only the next attempt of a pending delivery: a stale or an early job does nothing', async () => {
    const receiver = await receiverFor(() => ({ status: 500 }));
    const { webhookId, eventId } = await subscribedEvent(receiver.url);
    await fanOutOnly({ eventIds: [eventId] });
    const { id: deliveryId } = await h.db.delivery.findFirstOrThrow({ where: { webhookId } });
    await deliverWebhook({ deliveryId, attempt: 1 });
    expect(await h.db.delivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({ status: 'pending', attemptCount: 1, lockedUntil: null });

    expect(await deliverWebhook({ deliveryId, attempt: 1 })).toBeUndefined();
    expect(await deliverWebhook({ deliveryId, attempt: 3 })).toBeUndefined();
    expect(receiver.received).toHaveLength(1);

    await deliverWebhook({ deliveryId, attempt: 2 });
    expect(receiver.received).toHaveLength(2);
    const attempts = await h.db.deliveryAttempt.findMany({ where: { deliveryId }, orderBy: { attemptNumber: 'asc' } });
    expect(attempts.map((a) => a.attemptNumber)).toEqual([1, 2]);
  });

  it('brings a delivery waiting for its retry delay forward when asked to deliver now', async () => {
    const deliveryId = newId('delivery');
    await deps.jobs.scheduleDeliveries([{ deliveryId, attempt: 2, delayMs: 3_600_000 }]);
    expect(await (await deps.jobs.deliveries.getJob(`${deliveryId}-2`))!.getState()).toBe('delayed');
    await deps.jobs.ensureDeliveryScheduled(deliveryId, 2, { now: true });
    expect(await (await deps.jobs.deliveries.getJob(`${deliveryId}-2`))!.getState()).toBe('waiting');
  });
});

describe('the sweep', () => {
  it('deletes dispatched events past their 30 days, and keeps the others and every delivery', async () => {
    const org = await createOrg(h.db);
    const webhook = await h.db.webhook.create({
      data: {
        id: newId('webhook'),
        organizationId: org.organization.id,
        mode: 'live',
        url: 'http://127.0.0.1:1/hooks',
        secret: 's',
        events: ['*'],
        status: 'disabled',
      },
    });
    const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600 * 1000);
    const event = (createdAt: Date, dispatchedAt: Date | null) => ({
      id: newId('event'),
      organizationId: org.organization.id,
      mode: 'live' as const,
      type: 'task.created',
      data: {},
      createdAt,
      dispatchedAt,
    });
    const expired = event(daysAgo(31), daysAgo(31));
    const kept = event(daysAgo(29), daysAgo(29));
    // Undispatched (a subscription wants it, so it is written so): republished by the sweep, never pruned.
    await h.db.webhook.update({ where: { id: webhook.id }, data: { status: 'active' } });
    const waiting = event(daysAgo(31), null);
    await h.db.outboxEvent.createMany({ data: [expired, kept, waiting] });
    await h.db.webhook.update({ where: { id: webhook.id }, data: { status: 'disabled' } });
    const delivery = await h.db.delivery.create({
      data: {
        id: newId('delivery'),
        organizationId: org.organization.id,
        mode: 'live',
        webhookId: webhook.id,
        eventId: expired.id,
        eventType: 'task.created',
        body: '{}',
        status: 'succeeded',
      },
    });

    const { pruned } = await sweep(deps, 10_000);

    expect(pruned).toBeGreaterThanOrEqual(1);
    const left = await h.db.outboxEvent.findMany({ where: { id: { in: [expired.id, kept.id, waiting.id] } }, select: { id: true } });
    expect(left.map((e) => e.id).sort()).toEqual([kept.id, waiting.id].sort());
    expect(await h.db.delivery.findUnique({ where: { id: delivery.id } })).not.toBeNull();
    expect(await deps.jobs.events.getJob(waiting.id)).toBeDefined();
  });
});
