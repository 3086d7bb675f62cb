import { randomUUID } from 'node:crypto';
import { createLogger } from '@worktrack/config';
import { deliveryWork, newId, webhookSecretContext, type ClaimedDelivery } from '@worktrack/db';
import { createMetricsRegistry } from '@worktrack/metrics';
import { createRedisConnection, JobScheduler, queueLayout } from '@worktrack/queue';
import { verifyBodySignature } from '@worktrack/webhooks';
import { WebhookDeliverer } from '@worktrack/webhooks/deliver';
import { as, createHarness, createOrg, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import type { WorkerDeps } from '../src/deps';
import { DeliveryMetrics } from '../src/delivery-metrics';
import { DeliveryScheduler } from '../src/delivery-scheduler';
import { deliveryHandler, type MakeAttempt } from '../src/handlers/deliver-webhook';
import { dispatchHandler, type DispatchEvent } from '../src/handlers/dispatch-event';
import { sweep } from '../src/sweep';
import { receiversClosedAfterEach } from '@test-support/receiver';

// The handlers called directly, with no worker consuming the queues and no scheduler but the ones a
// test starts, to show what each does on its own.
let h: Harness;
let deps: WorkerDeps;
let producer: ReturnType<typeof createRedisConnection>;
let makeAttempt: MakeAttempt;
let dispatchEvent: DispatchEvent;
/** The claim's wake, as the dispatcher calls it. */
const fannedOut = jest.fn<void, []>();
const policy = { retryDelaysMs: [60_000, 300_000], claimMs: 5_000, startWithinMs: 1_000 };
const HOUR_MS = 3_600_000;

beforeAll(() => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', REDIS_PREFIX: `wt-test-${randomUUID().slice(0, 8)}` });
  producer = createRedisConnection(h.deps.config.redis, 'worker', 'test-handlers');
  deps = {
    data: h.deps.unscoped,
    work: deliveryWork(h.pool),
    jobs: new JobScheduler(producer, queueLayout(h.deps.config), () => undefined),
    deliverer: new WebhookDeliverer({ timeoutMs: 2_000, allowedHosts: ['127.0.0.1'] }),
    logger: createLogger('silent', 'test'),
    metrics: new DeliveryMetrics(createMetricsRegistry()),
    secrets: h.deps.secrets,
    mailer: h.deps.mailer,
    publicBaseUrl: h.deps.config.publicBaseUrl,
  };
  makeAttempt = deliveryHandler(deps, policy);
  dispatchEvent = dispatchHandler(deps, fannedOut);
});
afterAll(async () => {
  await deps.jobs.close();
  await deps.deliverer.close();
  producer.disconnect();
  await h.close();
});

// A claim takes what is due in the whole database: each test claims only its own deliveries, those
// the tests before it left pending being failed first.
beforeEach(async () => {
  await h.db.delivery.updateMany({ where: { status: 'pending' }, data: { status: 'failed', lockedUntil: null } });
  fannedOut.mockClear();
});

/** The names of the prepared statements run on the handlers' pool from now until the returned function is called. */
function statementsRun(): () => (string | undefined)[] {
  const query = jest.spyOn(h.pool, 'query');
  return () => {
    const names = query.mock.calls.map(([config]: unknown[]) =>
      typeof config === 'object' && config !== null && 'name' in config ? String(config.name) : undefined,
    );
    query.mockRestore();
    return names;
  };
}

const receiverFor = receiversClosedAfterEach();

/** A subscription of a new organization to the receiver, and the event of a project created after it. */
async function subscribedEvent(url: string) {
  const org = await createOrg(h.db);
  const webhookId = (await as(h.app, org.liveKey).post('/v1/webhooks', { url, events: ['project.created'] })).body.id as string;
  await as(h.app, org.liveKey).post('/v1/projects', { name: 'P' }).expect(201);
  const event = await h.db.outboxEvent.findFirstOrThrow({ where: { organizationId: org.organization.id } });
  return { org, webhookId, eventId: event.id };
}

const claimOnce = async () => (await deps.work.claimDueDeliveries(10, policy.claimMs)).deliveries;

/** Claims what is due, which must be the one delivery of this subscription. */
async function claimOnly(webhookId: string): Promise<ClaimedDelivery> {
  const claimed = await claimOnce();
  expect(claimed.map((d) => d.webhookId)).toEqual([webhookId]);
  return claimed[0]!;
}

/** A subscription's delivery fanned out and claimed, ready for its first attempt. */
async function claimedDelivery(url: string) {
  const { org, webhookId, eventId } = await subscribedEvent(url);
  expect(await dispatchEvent({ eventIds: [eventId] })).toBe(1);
  return { org, webhookId, eventId, delivery: await claimOnly(webhookId) };
}

const deliveryOf = (id: string) => h.db.delivery.findUniqueOrThrow({ where: { id }, include: { attempts: { orderBy: { attemptNumber: 'asc' } } } });
const webhookOf = (id: string) => h.db.webhook.findUniqueOrThrow({ where: { id } });
const retryJob = (deliveryId: string, attempt: number) => deps.jobs.deliveriesQueueOf(deliveryId).getJob(`${deliveryId}-${attempt}`);

describe('dispatch-event', () => {
  it('fans an event out once, however often it is dispatched, by one worker or two', async () => {
    const { webhookId, eventId } = await subscribedEvent('http://127.0.0.1:9/never');
    const otherWorker = dispatchHandler(deps, fannedOut);
    const counts = await Promise.all([dispatchEvent({ eventIds: [eventId] }), dispatchEvent({ eventIds: [eventId] }), otherWorker({ eventIds: [eventId] })]);
    expect(counts.sort()).toEqual([0, 0, 1]);
    expect(await dispatchEvent({ eventIds: [eventId] })).toBe(0);
    expect(await h.db.delivery.count({ where: { webhookId } })).toBe(1);
    expect((await h.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } })).dispatchedAt).not.toBeNull();
    expect(fannedOut).toHaveBeenCalledTimes(1);
  });

  it('inserts the deliveries due at once and unleased, wakes the claim, and sends nothing itself', async () => {
    const receiver = await receiverFor();
    const { org, webhookId, eventId } = await subscribedEvent(receiver.url);
    const second = (await as(h.app, org.liveKey).post('/v1/webhooks', { url: receiver.url, events: ['project.created'] })).body.id as string;
    const before = Date.now();

    expect(await dispatchEvent({ eventIds: [eventId] })).toBe(2);

    expect(fannedOut).toHaveBeenCalledTimes(1);
    const made = await h.db.delivery.findMany({ where: { eventId }, orderBy: { webhookId: 'asc' } });
    expect(made.map((d) => [d.webhookId, d.status, d.attemptCount, d.lockedUntil])).toEqual([webhookId, second].sort().map((id) => [id, 'pending', 0, null]));
    for (const d of made) {
      expect(d.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before - 1);
      expect(d.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1);
      // No job: the claim finds them in Postgres.
      expect(await retryJob(d.id, 1)).toBeUndefined();
    }
    expect(receiver.received).toHaveLength(0);
    const claimed = await claimOnce();
    expect(claimed.map((d) => d.id).sort()).toEqual(made.map((d) => d.id).sort());
  });

  it('fans the events of one job out in one statement, and runs none when they were all fanned out before', async () => {
    const receiver = await receiverFor();
    const events = await Promise.all([subscribedEvent(receiver.url), subscribedEvent(receiver.url), subscribedEvent(receiver.url)]);
    const eventIds = events.map((e) => e.eventId);
    let statements = statementsRun();
    expect(await dispatchEvent({ eventIds })).toBe(3);
    const names = statements();
    expect(names.filter((name) => name === 'outbox-events.undispatched')).toHaveLength(1);
    expect(names.filter((name) => name === 'deliveries.insert')).toHaveLength(1);
    expect(fannedOut).toHaveBeenCalledTimes(1);
    expect(await h.db.delivery.count({ where: { eventId: { in: eventIds } } })).toBe(3);

    statements = statementsRun();
    expect(await dispatchEvent({ eventIds })).toBe(0);
    expect(statements()).not.toContain('deliveries.insert');
    expect(fannedOut).toHaveBeenCalledTimes(1);
    expect(receiver.received).toHaveLength(0);
  });

  it('marks an event dispatched when no subscription wants it any more, and wakes no claim', async () => {
    const { org, webhookId, eventId } = await subscribedEvent('http://127.0.0.1:9/never');
    await as(h.app, org.liveKey).delete(`/v1/webhooks/${webhookId}`).expect(204);

    expect(await dispatchEvent({ eventIds: [eventId] })).toBe(0);

    expect((await h.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } })).dispatchedAt).not.toBeNull();
    expect(await h.db.delivery.count({ where: { eventId } })).toBe(0);
    expect(fannedOut).not.toHaveBeenCalled();
  });

  it("fans out a job's other events when one event's fan-out fails, then fails, leaving that event to the job's retry", async () => {
    const [made, refused] = await Promise.all([subscribedEvent('http://127.0.0.1:9/never'), subscribedEvent('http://127.0.0.1:9/never')]);
    const query = h.pool.query.bind(h.pool);
    const failing = jest.spyOn(h.pool, 'query').mockImplementation(((config: { name?: string; values?: unknown[] }, ...rest: unknown[]) => {
      const ids = config.name === 'deliveries.insert' ? (config.values![0] as string[]) : [];
      if (ids.includes(refused!.eventId)) return Promise.reject(new Error('fan-out refused'));
      return (query as (...args: unknown[]) => unknown)(config, ...rest);
    }) as typeof h.pool.query);
    try {
      await expect(dispatchEvent({ eventIds: [made!.eventId, refused!.eventId] })).rejects.toThrow('fan-out refused');
    } finally {
      failing.mockRestore();
    }
    expect(await h.db.delivery.findFirstOrThrow({ where: { eventId: made!.eventId } })).toMatchObject({ status: 'pending', lockedUntil: null });
    expect(fannedOut).toHaveBeenCalledTimes(1);
    expect(await h.db.delivery.count({ where: { eventId: refused!.eventId } })).toBe(0);
    expect((await h.db.outboxEvent.findUniqueOrThrow({ where: { id: refused!.eventId } })).dispatchedAt).toBeNull();

    // The job's retry.
    expect(await dispatchEvent({ eventIds: [made!.eventId, refused!.eventId] })).toBe(1);
    expect(await h.db.delivery.count({ where: { eventId: refused!.eventId } })).toBe(1);
    expect(fannedOut).toHaveBeenCalledTimes(2);
  });

  it('run again after its worker died, finds its event dispatched and does nothing: the delivery waits in Postgres for a claim', async () => {
    const receiver = await receiverFor();
    const { webhookId, eventId } = await subscribedEvent(receiver.url);
    expect(await dispatchEvent({ eventIds: [eventId] })).toBe(1);
    fannedOut.mockClear();

    expect(await dispatchHandler(deps, fannedOut)({ eventIds: [eventId] })).toBe(0);
    expect(fannedOut).not.toHaveBeenCalled();

    await makeAttempt(await claimOnly(webhookId));
    expect(await h.db.delivery.findFirstOrThrow({ where: { webhookId } })).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(receiver.received).toHaveLength(1);
  });
});

describe('makeAttempt, after a claim', () => {
  it('signs and posts the stored body, and settles the delivery when the receiver takes it', async () => {
    const receiver = await receiverFor();
    const { webhookId, delivery } = await claimedDelivery(receiver.url);

    await makeAttempt(delivery);

    expect(receiver.received).toHaveLength(1);
    const [received] = receiver.received;
    expect(received!.body).toBe(delivery.body);
    expect(received!.json).toMatchObject({ event: 'project.created', deliveryId: delivery.id, webhookId });
    // The claim returns the secret sealed as stored; the signature is made with it opened.
    const secret = h.deps.secrets.open(delivery.secret, webhookSecretContext(webhookId));
    expect(verifyBodySignature(secret, received!.body, received!.headers['x-service-signature'] as string)).toBe(true);
    const settled = await deliveryOf(delivery.id);
    expect(settled).toMatchObject({ status: 'succeeded', attemptCount: 1, lockedUntil: null, nextAttemptAt: null });
    expect(settled.attempts.map((a) => [a.attemptNumber, a.responseStatus, a.error])).toEqual([[1, 200, null]]);
    expect(await retryJob(delivery.id, 2)).toBeUndefined();
    expect(await webhookOf(webhookId)).toMatchObject({ status: 'active', pausedUntil: null });
  });

  it.each<[string, () => MakeAttempt]>([
    ['deliveries.record', () => makeAttempt],
    // As the worker records, claiming in the same statement: the whole statement is run again.
    [
      'deliveries.record-and-claim',
      () => deliveryHandler(deps, policy, async (records) => void (await deps.work.recordAttemptsAndClaim(records, 10, policy.claimMs))),
    ],
  ])(
    'records an attempt whose statement (%s) Postgres rolled back to break a deadlock by running it again: one request, one attempt',
    async (statement, attemptOf) => {
      const receiver = await receiverFor();
      const { webhookId, delivery } = await claimedDelivery(receiver.url);
      const attempt = attemptOf();
      // A claim and a record lock a subscription's row and its deliveries' in opposite orders; Postgres
      // then rolls one of them back with SQLSTATE 40P01. Here the record is that victim, once.
      const query = h.pool.query.bind(h.pool);
      let victims = 0;
      const deadlocking = jest.spyOn(h.pool, 'query').mockImplementation(((config: { name?: string }, ...rest: unknown[]) => {
        if (config.name === statement && victims === 0) {
          victims += 1;
          return Promise.reject(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
        }
        return (query as (...args: unknown[]) => unknown)(config, ...rest);
      }) as typeof h.pool.query);
      try {
        await attempt(delivery);
      } finally {
        deadlocking.mockRestore();
      }

      expect(victims).toBe(1);
      expect(receiver.received).toHaveLength(1);
      const settled = await deliveryOf(delivery.id);
      expect(settled).toMatchObject({ status: 'succeeded', attemptCount: 1, lockedUntil: null });
      expect(settled.attempts.map((a) => [a.attemptNumber, a.responseStatus])).toEqual([[1, 200]]);
      expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 0 });
    },
  );

  it('records a 500 and schedules the retry, a delayed job in Redis; the claim leaves it until due, then makes the next attempt', async () => {
    const receiver = await receiverFor(() => ({ status: 500 }));
    const { webhookId, delivery } = await claimedDelivery(receiver.url);
    const before = Date.now();

    await makeAttempt(delivery);

    const failed = await deliveryOf(delivery.id);
    expect(failed).toMatchObject({ status: 'pending', attemptCount: 1, lockedUntil: null });
    expect(failed.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(failed.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(failed.attempts.map((a) => [a.attemptNumber, a.responseStatus, a.error])).toEqual([[1, 500, 'http_status: receiver answered 500']]);
    const job = (await retryJob(delivery.id, 2))!;
    expect(await job.getState()).toBe('delayed');
    expect(job.opts.delay).toBe(60_000);
    // No pause: a 500 says nothing of when to come back.
    expect((await webhookOf(webhookId)).pausedUntil).toBeNull();

    expect(await claimOnce()).toEqual([]);
    await h.db.delivery.update({ where: { id: delivery.id }, data: { nextAttemptAt: new Date() } });
    const retry = await claimOnly(webhookId);
    expect(retry).toMatchObject({ id: delivery.id, attemptCount: 1 });
    await makeAttempt(retry);
    expect((await deliveryOf(delivery.id)).attempts.map((a) => a.attemptNumber)).toEqual([1, 2]);
    expect((await retryJob(delivery.id, 3))!.opts.delay).toBe(300_000);
    expect(receiver.received).toHaveLength(2);
  });

  it('after a 429 with Retry-After: 120, retries no sooner and pauses the subscription as long, recording a failure', async () => {
    const receiver = await receiverFor(() => ({ status: 429, headers: { 'Retry-After': '120' } }));
    const { org, webhookId, delivery } = await claimedDelivery(receiver.url);
    const before = Date.now();

    await makeAttempt(delivery);

    const after = Date.now();
    const retried = await deliveryOf(delivery.id);
    expect(retried).toMatchObject({ status: 'pending', attemptCount: 1, lockedUntil: null });
    expect(retried.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    expect(retried.nextAttemptAt!.getTime()).toBeLessThanOrEqual(after + 120_000);
    expect(retried.attempts).toEqual([
      expect.objectContaining({
        attemptNumber: 1,
        responseStatus: 429,
        error: 'http_status: receiver answered 429',
        responseHeaders: expect.objectContaining({ 'retry-after': '120' }),
      }),
    ]);
    const paused = await webhookOf(webhookId);
    expect(paused.status).toBe('active');
    expect(paused.pausedUntil!.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    expect(paused.pausedUntil!.getTime()).toBeLessThanOrEqual(after + 120_000);
    expect((await retryJob(delivery.id, 2))!.opts.delay).toBe(120_000);

    // The subscription's next delivery, due at once, waits out the pause.
    await as(h.app, org.liveKey).post('/v1/projects', { name: 'Q' }).expect(201);
    const next = await h.db.outboxEvent.findFirstOrThrow({ where: { organizationId: org.organization.id, dispatchedAt: null } });
    expect(await dispatchEvent({ eventIds: [next.id] })).toBe(1);
    expect(await claimOnce()).toEqual([]);
  });

  it('after a 503 with an HTTP-date Retry-After, retries and pauses until that date', async () => {
    // An HTTP date counts whole seconds.
    const until = new Date(Math.ceil((Date.now() + 10 * 60_000) / 1000) * 1000);
    const receiver = await receiverFor(() => ({ status: 503, headers: { 'Retry-After': until.toUTCString() } }));
    const { webhookId, delivery } = await claimedDelivery(receiver.url);
    const before = Date.now();

    await makeAttempt(delivery);

    const after = Date.now();
    const retried = await deliveryOf(delivery.id);
    expect(retried).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(retried.attempts.map((a) => [a.responseStatus, a.error])).toEqual([[503, 'http_status: receiver answered 503']]);
    // Due at the date, give or take the time the attempt took to be recorded.
    for (const at of [retried.nextAttemptAt!, (await webhookOf(webhookId)).pausedUntil!]) {
      expect(at.getTime()).toBeGreaterThanOrEqual(until.getTime() - 1);
      expect(at.getTime()).toBeLessThanOrEqual(until.getTime() + (after - before) + 1);
    }
  });

  it('after a Retry-After of three days, retries within 6 hours and pauses the subscription 1 hour at most', async () => {
    const receiver = await receiverFor(() => ({ status: 429, headers: { 'Retry-After': String(3 * 24 * 3600) } }));
    const { webhookId, delivery } = await claimedDelivery(receiver.url);
    const before = Date.now();

    await makeAttempt(delivery);

    const after = Date.now();
    const retried = await deliveryOf(delivery.id);
    expect(retried.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before + 6 * HOUR_MS);
    expect(retried.nextAttemptAt!.getTime()).toBeLessThanOrEqual(after + 6 * HOUR_MS);
    expect((await retryJob(delivery.id, 2))!.opts.delay).toBe(6 * HOUR_MS);
    const { pausedUntil } = await webhookOf(webhookId);
    expect(pausedUntil!.getTime()).toBeGreaterThanOrEqual(before + HOUR_MS);
    expect(pausedUntil!.getTime()).toBeLessThanOrEqual(after + HOUR_MS);
  });

  it('is given back by a release that names its lease, and by no other', async () => {
    const { webhookId, delivery } = await claimedDelivery('http://127.0.0.1:9/never');
    expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 1 });

    // A lease that lapsed and went to another worker is not this release's to end.
    await deps.work.releaseDeliveries([{ id: delivery.id, leasedUntil: new Date(delivery.leasedUntil.getTime() - 1) }]);
    expect(await deliveryOf(delivery.id)).toMatchObject({ lockedUntil: delivery.leasedUntil });
    expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 1 });

    await deps.work.releaseDeliveries([delivery]);
    expect(await deliveryOf(delivery.id)).toMatchObject({ status: 'pending', attemptCount: 0, lockedUntil: null });
    expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 0 });
    expect((await claimOnly(webhookId)).id).toBe(delivery.id);
  });

  it('is made once when two workers claim at the same time', async () => {
    const receiver = await receiverFor();
    const { webhookId, eventId } = await subscribedEvent(receiver.url);
    await dispatchEvent({ eventIds: [eventId] });

    const claims = await Promise.all([claimOnce(), claimOnce()]);
    expect(claims.flat().map((d) => d.webhookId)).toEqual([webhookId]);
    await Promise.all(claims.flat().map(makeAttempt));

    expect(receiver.received).toHaveLength(1);
    const settled = await h.db.delivery.findFirstOrThrow({ where: { webhookId }, include: { attempts: true } });
    expect(settled).toMatchObject({ status: 'succeeded', attemptCount: 1, lockedUntil: null });
    expect(settled.attempts).toHaveLength(1);
  });

  it('brings a delivery waiting for its retry delay forward when asked to deliver now', async () => {
    const deliveryId = newId('delivery');
    await deps.jobs.scheduleDeliveries([{ deliveryId, attempt: 2, delayMs: 3_600_000 }]);
    expect(await (await retryJob(deliveryId, 2))!.getState()).toBe('delayed');
    await deps.jobs.ensureDeliveryScheduled(deliveryId, 2, { now: true });
    expect(await (await retryJob(deliveryId, 2))!.getState()).toBe('waiting');
  });
});

describe('DeliveryScheduler', () => {
  /** A receiver that holds every request until the test answers it, counting those it holds at once. */
  async function holdingReceiver() {
    const answers: (() => void)[] = [];
    const counts = { held: 0, mostHeld: 0 };
    const receiver = await receiverFor(() => {
      counts.mostHeld = Math.max(counts.mostHeld, ++counts.held);
      return {
        status: 200,
        until: new Promise<void>((resolve) =>
          answers.push(() => {
            counts.held--;
            resolve();
          }),
        ),
      };
    });
    return { receiver, answers, counts };
  }

  /** `count` events of one new organization, each to the subscription to `url`. */
  async function events(url: string, count: number) {
    const org = await createOrg(h.db);
    const webhookId = (await as(h.app, org.liveKey).post('/v1/webhooks', { url, events: ['project.created'] })).body.id as string;
    for (let i = 0; i < count; i++)
      await as(h.app, org.liveKey)
        .post('/v1/projects', { name: `P${i}` })
        .expect(201);
    const eventIds = (await h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id }, orderBy: { id: 'asc' } })).map((e) => e.id);
    expect(eventIds).toHaveLength(count);
    return { webhookId, eventIds };
  }

  /** A scheduler whose attempts' records go through it, as the worker's do; `onRecord` sees each batch arrive. */
  const scheduler = ({ onRecord, ...options }: { concurrency: number; pollMs?: number; onRecord?: () => void }) => {
    const recordedThrough = deliveryHandler(deps, policy, (records) => {
      onRecord?.();
      return running.record(records);
    });
    const running = new DeliveryScheduler(deps.work, recordedThrough, deps.logger, {
      claimMs: policy.claimMs,
      startWithinMs: policy.startWithinMs,
      pollMs: 600_000,
      ...options,
    });
    return running;
  };

  const succeeded = (webhookId: string, count: number) =>
    waitFor(async () => ((await h.db.delivery.count({ where: { webhookId, status: 'succeeded' } })) === count ? true : undefined));

  it('never makes more than `concurrency` attempts at once, claims a batch ahead, and makes every due one in the end', async () => {
    const { receiver, answers, counts } = await holdingReceiver();
    const { webhookId, eventIds } = await events(receiver.url, 6);
    const running = scheduler({ concurrency: 2 });
    try {
      expect(await dispatchHandler(deps, () => running.wake())({ eventIds })).toBe(6);
      await receiver.waitForCount(2);
      // Two being made and two claimed ahead (two batches of half the slots), all
      // four leased; the other two wait, unleased, however often the claim is woken.
      running.wake();
      expect(await h.db.delivery.count({ where: { webhookId, lockedUntil: { gt: new Date() } } })).toBe(4);
      for (let answered = 0; answered < 6; answered++) {
        answers[answered]!();
        if (answered + 3 <= 6) await receiver.waitForCount(answered + 3);
      }
      await succeeded(webhookId, 6);
      expect(counts.mostHeld).toBe(2);
      expect(new Set(receiver.received.map((r) => r.json.deliveryId)).size).toBe(6);
      expect(receiver.received).toHaveLength(6);
    } finally {
      for (const answer of answers) answer();
      await running.close();
    }
  });

  it('refills the slots a record frees in the statement of the record, with no claim of its own', async () => {
    const receiver = await receiverFor();
    const { webhookId, eventIds } = await events(receiver.url, 3);
    await h.db.webhook.update({ where: { id: webhookId }, data: { maxConcurrency: 1 } });
    const running = scheduler({ concurrency: 5 });
    const statements = statementsRun();
    try {
      await dispatchHandler(deps, () => running.wake())({ eventIds });
      await succeeded(webhookId, 3);
      await running.close();
      // The wake's claim takes the one the cap allows; each record takes the next, the last none.
      const names = statements().filter((name) => name?.startsWith('deliveries.'));
      expect(names.filter((name) => name === 'deliveries.claim')).toHaveLength(1);
      expect(names.filter((name) => name === 'deliveries.record-and-claim')).toHaveLength(3);
      expect(names.filter((name) => name === 'deliveries.record')).toHaveLength(0);
      expect(receiver.received).toHaveLength(3);
      expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 0 });
    } finally {
      await running.close();
    }
  });

  it('writes a record that comes while a claim runs after that claim, claiming in its own statement', async () => {
    const { receiver, answers } = await holdingReceiver();
    const { webhookId, eventIds } = await events(receiver.url, 1);
    let recordReached!: () => void;
    const recordCalled = new Promise<void>((resolve) => {
      recordReached = resolve;
    });
    const running = scheduler({ concurrency: 5, onRecord: () => recordReached() });
    // The claims after the first wait at a gate the test opens once the attempt's record has come.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    let claimsSeen = 0;
    const query = h.pool.query.bind(h.pool);
    const names: (string | undefined)[] = [];
    const gated = jest.spyOn(h.pool, 'query').mockImplementation(((config: { name?: string }, ...rest: unknown[]) => {
      names.push(config.name);
      const run = () => (query as (...args: unknown[]) => Promise<unknown>)(config, ...rest);
      return config.name === 'deliveries.claim' && ++claimsSeen > 1 ? gate.then(run) : run();
    }) as typeof h.pool.query);
    try {
      await dispatchHandler(deps, () => running.wake())({ eventIds });
      await receiver.waitForCount(1);
      running.wake();
      await waitFor(async () => (claimsSeen > 1 ? true : undefined));
      answers[0]!();
      await recordCalled;
      openGate();
      await succeeded(webhookId, 1);
      await running.close();
      const deliveryStatements = names.filter((name) => name?.startsWith('deliveries.'));
      expect(deliveryStatements).toEqual(['deliveries.insert', 'deliveries.claim', 'deliveries.claim', 'deliveries.record-and-claim']);
      expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 0 });
    } finally {
      openGate();
      gated.mockRestore();
      for (const answer of answers) answer();
      await running.close();
    }
  });

  it('writes the records again alone when the statement that claims with them fails: one request, one attempt each', async () => {
    const receiver = await receiverFor();
    const { webhookId, eventIds } = await events(receiver.url, 2);
    const running = scheduler({ concurrency: 5 });
    const query = h.pool.query.bind(h.pool);
    let failed = 0;
    const failing = jest.spyOn(h.pool, 'query').mockImplementation(((config: { name?: string }, ...rest: unknown[]) => {
      if (config.name !== 'deliveries.record-and-claim') return (query as (...args: unknown[]) => unknown)(config, ...rest);
      failed += 1;
      return Promise.reject(new Error('claim failed'));
    }) as typeof h.pool.query);
    try {
      await dispatchHandler(deps, () => running.wake())({ eventIds });
      await succeeded(webhookId, 2);
      expect(failed).toBeGreaterThan(0);
      expect(receiver.received).toHaveLength(2);
      const made = await h.db.delivery.findMany({ where: { webhookId }, include: { attempts: true } });
      expect(made.map((d) => d.attempts.length)).toEqual([1, 1]);
      expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 0 });
    } finally {
      failing.mockRestore();
      await running.close();
    }
  });

  it('claims what is due when woken, and unprompted at each poll', async () => {
    const receiver = await receiverFor();
    const woken = await events(receiver.url, 1);
    const wakeable = scheduler({ concurrency: 5 });
    try {
      await dispatchHandler(deps, () => wakeable.wake())({ eventIds: woken.eventIds });
      await succeeded(woken.webhookId, 1);
    } finally {
      await wakeable.close();
    }

    // Due with no wake (a pause or a lease that ended): the poll finds it.
    const polled = await events(receiver.url, 1);
    const polling = scheduler({ concurrency: 5, pollMs: 50 });
    try {
      await dispatchHandler(deps, () => undefined)({ eventIds: polled.eventIds });
      await succeeded(polled.webhookId, 1);
    } finally {
      await polling.close();
    }
    expect(receiver.received.map((r) => r.json.webhookId)).toEqual([woken.webhookId, polled.webhookId]);
  });

  it('gives back a delivery claimed ahead that waited too long for a slot, and makes it once it is claimed again', async () => {
    const { receiver, answers } = await holdingReceiver();
    const { webhookId, eventIds } = await events(receiver.url, 2);
    const started: ClaimedDelivery[] = [];
    const running = new DeliveryScheduler(
      deps.work,
      (delivery) => {
        started.push(delivery);
        return makeAttempt(delivery);
      },
      deps.logger,
      { concurrency: 1, claimMs: policy.claimMs, startWithinMs: 100, pollMs: 20 },
    );
    try {
      await dispatchHandler(deps, () => running.wake())({ eventIds });
      const [first] = await receiver.waitForCount(1);
      const ahead = await h.db.delivery.findFirstOrThrow({ where: { webhookId, id: { not: first!.json.deliveryId } } });
      expect(ahead.lockedUntil).not.toBeNull();
      // Its slot still held, it is released and claimed again: a lease of its own each time.
      await waitFor(async () => ((await deliveryOf(ahead.id)).lockedUntil?.getTime() !== ahead.lockedUntil!.getTime() ? true : undefined));
      expect(receiver.received).toHaveLength(1);

      answers[0]!();
      await receiver.waitForCount(2);
      answers[1]!();
      await succeeded(webhookId, 2);
      expect(receiver.received.map((r) => r.json.deliveryId)).toEqual([first!.json.deliveryId, ahead.id]);
      expect(started.find((d) => d.id === ahead.id)!.leasedUntil.getTime()).toBeGreaterThan(ahead.lockedUntil!.getTime());
      expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 0 });
    } finally {
      for (const answer of answers) answer();
      await running.close();
    }
  });

  it('on close, waits for the attempts in flight to be recorded, gives back what it claimed ahead, and claims nothing more', async () => {
    const { receiver, answers } = await holdingReceiver();
    const { webhookId, eventIds } = await events(receiver.url, 2);
    const running = scheduler({ concurrency: 1 });
    try {
      await dispatchHandler(deps, () => running.wake())({ eventIds });
      const [made] = await receiver.waitForCount(1);
      let closed = false;
      const closing = running.close().then(() => {
        closed = true;
      });
      // Still waiting for the attempt a database round trip later.
      const inFlight = await deliveryOf(made!.json.deliveryId);
      expect(inFlight.lockedUntil).not.toBeNull();
      expect(closed).toBe(false);

      answers[0]!();
      await closing;

      expect(await h.db.delivery.findUniqueOrThrow({ where: { id: inFlight.id } })).toMatchObject({ status: 'succeeded', lockedUntil: null });
      expect(await h.db.delivery.findFirstOrThrow({ where: { webhookId, id: { not: inFlight.id } } })).toMatchObject({
        status: 'pending',
        attemptCount: 0,
        lockedUntil: null,
      });
      running.wake();
      expect(await h.db.delivery.count({ where: { webhookId, lockedUntil: { not: null } } })).toBe(0);
      expect(await webhookOf(webhookId)).toMatchObject({ inFlight: 0 });
      expect(receiver.received).toHaveLength(1);
    } finally {
      for (const answer of answers) answer();
      await running.close();
    }
  });
});

describe('the sweep', () => {
  /** An outbox row of the organization's, written as it stands at `createdAt`. */
  const outboxEvent = (organizationId: string, createdAt: Date, dispatchedAt: Date | null = null) => ({
    id: newId('event'),
    organizationId,
    mode: 'live' as const,
    type: 'task.created',
    data: {},
    createdAt,
    dispatchedAt,
  });

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
    const event = (createdAt: Date, dispatchedAt: Date | null) => outboxEvent(org.organization.id, createdAt, dispatchedAt);
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

    const { pruned } = await sweep(deps, { graceMs: 10_000, deliveryRetentionDays: 30 });

    expect(pruned).toBeGreaterThanOrEqual(1);
    const left = await h.db.outboxEvent.findMany({ where: { id: { in: [expired.id, kept.id, waiting.id] } }, select: { id: true } });
    expect(left.map((e) => e.id).sort()).toEqual([kept.id, waiting.id].sort());
    expect(await h.db.delivery.findUnique({ where: { id: delivery.id } })).not.toBeNull();
    expect(await deps.jobs.eventsQueueOf(waiting.organizationId).getJob(waiting.id)).toBeDefined();
  });

  it('publishes an overdue event again only when no job of its shard may still hold it', async () => {
    const org = await createOrg(h.db);
    await h.db.webhook.create({
      data: { id: newId('webhook'), organizationId: org.organization.id, mode: 'live', url: 'http://127.0.0.1:1/hooks', secret: 's', events: ['*'] },
    });
    const secondsAgo = (seconds: number) => new Date(Date.now() - seconds * 1000);
    const event = (createdAt: Date) => outboxEvent(org.organization.id, createdAt);
    // Behind a backlog: its batch job, led by another event, was added 5 s after it and still waits.
    const [leader, queued] = [event(secondsAgo(20)), event(secondsAgo(20))];
    // Lost: created long before any job now in the queue was added.
    const lost = event(secondsAgo(60));
    await h.db.outboxEvent.createMany({ data: [leader, queued, lost] });
    // Queues of their own, holding only this test's jobs.
    const jobs = new JobScheduler(producer, queueLayout({ ...h.deps.config, redisPrefix: `wt-test-${randomUUID().slice(0, 8)}` }), () => undefined);
    try {
      const queue = jobs.eventsQueueOf(org.organization.id);
      await queue.add('dispatch-event', { eventIds: [leader.id, queued.id] }, { jobId: leader.id, timestamp: Date.now() - 15_000 });

      await sweep({ ...deps, jobs }, { graceMs: 10_000, deliveryRetentionDays: 30 });

      expect(await queue.getJob(queued.id)).toBeUndefined();
      expect((await queue.getJob(lost.id))?.data).toEqual({ eventIds: [lost.id] });
    } finally {
      await jobs.close();
    }
  });
});
