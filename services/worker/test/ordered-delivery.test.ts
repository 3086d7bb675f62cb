import type { ServerResponse } from 'node:http';
import { as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { expectCommitOrder, taskOf, versionOf } from '@test-support/commit-order';
import { exitCode } from '@test-support/processes';
import { deferred, receiversClosedAfterEach, type Received } from '@test-support/receiver';
import { waitFor } from '@test-support/wait-for';
import { startTestWorker, startWorkerProcess } from '@test-support/worker-harness';
import { deliveryWork } from '@worktrack/db';
import { dispatchHandler } from '../src/handlers/dispatch-event';

// docs/decisions.md#ordered-delivery: with `ordering: "resource"`, the deliveries about one task reach the
// subscription one at a time, in commit order; a failing one holds back only its own task.
let h: Harness;
beforeAll(() => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
});
afterAll(() => h.close());

const receiverFor = receiversClosedAfterEach();
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

// Retries in milliseconds, and enough of them that a receiver failing 30% at random never exhausts one.
const QUICK_RETRIES = Array.from({ length: 12 }, () => '20').join(',');

function startWorker(env: NodeJS.ProcessEnv = {}) {
  const worker = startTestWorker({ prefix: h.deps.config.redisPrefix, env: { WORKER_CONCURRENCY: '10', WEBHOOK_RETRY_DELAYS_MS: QUICK_RETRIES, ...env } });
  stops.push(() => worker.close());
}

async function startWorkerProcesses(count: number) {
  // The shipped timeout and lease (5 s, 7 s): a shorter lease lapses under a busy machine's stalls.
  const env = { WEBHOOK_RETRY_DELAYS_MS: QUICK_RETRIES, WORKER_CONCURRENCY: '10' };
  return Promise.all(
    Array.from({ length: count }, async () => {
      const child = await startWorkerProcess({ prefix: h.deps.config.redisPrefix, env });
      stops.push(async () => {
        child.kill('SIGTERM');
        await exitCode(child);
      });
      return child;
    }),
  );
}

interface Subscribed {
  org: TestOrg;
  projectId: string;
  webhookId: string;
}

/** An organization with a project and a subscription to `task.updated` at `url`. */
async function subscribed(url: string, settings: Record<string, unknown> = { ordering: 'resource' }): Promise<Subscribed> {
  const org = await createOrg(h.db, { plan: 'pro' });
  const projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Mirror' }).expect(201)).body.id as string;
  const res = await as(h.app, org.liveKey)
    .post('/v1/webhooks', { url, events: ['task.updated'], ...settings })
    .expect(201);
  return { org, projectId, webhookId: res.body.id as string };
}

async function createTasks({ org, projectId }: Subscribed, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push((await as(h.app, org.liveKey).post('/v1/tasks', { title: 'v0', projectId }).expect(201)).body.id as string);
  return ids;
}

/** The API's pool holds five connections: four PATCHes at a time, so that none waits past its limit. */
const LANES = 4;

/**
 * Each task PATCHed `updates` times in sequence (its title v1, v2, ...), the tasks concurrently: the
 * tasks are spread over a few lanes, each lane updating its tasks in turn.
 */
async function updateTasks({ org }: Subscribed, taskIds: string[], updates: number): Promise<void> {
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let v = 1; v <= updates; v += 1)
        for (const taskId of taskIds.filter((_, i) => i % LANES === lane))
          await as(h.app, org.liveKey)
            .patch(`/v1/tasks/${taskId}`, { title: `v${v}` })
            .expect(200);
    }),
  );
}

/** A seeded generator, so that a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A receiver answering 500 to the requests `fails` picks, each after a few milliseconds, noting the
 * status it gave each request and the most requests of one task, and of all, it ever had open at once.
 */
async function judgedReceiver(fails: (r: Received) => boolean, delayMs: () => number = () => 0) {
  const status = new Map<Received, number>();
  const open = new Map<string, number>();
  const seen = { maxOpenPerTask: 0, maxOpen: 0, openNow: 0 };
  const receiver = await receiverFor((_, r) => (res: ServerResponse) => {
    const task = taskOf(r);
    open.set(task, (open.get(task) ?? 0) + 1);
    seen.maxOpenPerTask = Math.max(seen.maxOpenPerTask, open.get(task)!);
    seen.openNow += 1;
    seen.maxOpen = Math.max(seen.maxOpen, seen.openNow);
    res.on('close', () => {
      open.set(task, open.get(task)! - 1);
      seen.openNow -= 1;
    });
    const answer = fails(r) ? 500 : 200;
    status.set(r, answer);
    setTimeout(() => {
      res.statusCode = answer;
      res.end('ok');
    }, delayMs()).unref();
  });
  return { receiver, status, seen };
}

/** Versions 1 to `updates`: a task's PATCHes, in commit order. */
const upTo = (updates: number) => () => Array.from({ length: updates }, (_, i) => i + 1);

/** Resolves once at least `count` of the subscription's deliveries succeeded. */
const settled = (webhookId: string, count: number) =>
  waitFor(async () => ((await h.db.delivery.count({ where: { webhookId, status: 'succeeded' } })) >= count ? true : undefined), { timeoutMs: 30_000 });

describe('the §20 bound: 20 tasks each PATCHed 10 times, to a receiver failing 30% at random', () => {
  const TASKS = 20;
  const UPDATES = 10;

  async function run(start: () => Promise<unknown>, midRun?: (receivedSoFar: number) => Promise<void>) {
    const rng = random(20);
    const { receiver, status, seen } = await judgedReceiver(
      () => rng() < 0.3,
      () => Math.floor(rng() * 20),
    );
    const sub = await subscribed(receiver.url);
    const taskIds = await createTasks(sub, TASKS);
    await start();
    const updating = updateTasks(sub, taskIds, UPDATES);
    if (midRun) {
      await receiver.waitForCount(40, 30_000);
      await midRun(receiver.received.length);
    }
    await updating;
    await settled(sub.webhookId, TASKS * UPDATES);
    return { received: receiver.received, status, seen, taskIds };
  }

  it('one worker: each task in commit order, one at a time, every update answered', async () => {
    const { received, status, seen, taskIds } = await run(async () => startWorker());
    expectCommitOrder(received, taskIds, upTo(UPDATES), status);
    expect(seen.maxOpenPerTask).toBe(1);
  }, 120_000);

  it("two worker processes: the same, and their twenty slots together within the subscription's maxConcurrency of 10", async () => {
    const { received, status, seen, taskIds } = await run(() => startWorkerProcesses(2));
    expectCommitOrder(received, taskIds, upTo(UPDATES), status);
    expect(seen.maxOpenPerTask).toBe(1);
    expect(seen.maxOpen).toBeLessThanOrEqual(10);
  }, 180_000);

  it('a worker killed mid-run: its attempts are taken over, the order kept', async () => {
    let doomed: Awaited<ReturnType<typeof startWorkerProcesses>>[number] | undefined;
    const { received, status, seen, taskIds } = await run(
      async () => {
        [doomed] = await startWorkerProcesses(2);
      },
      async () => {
        doomed!.kill('SIGKILL');
        await exitCode(doomed!);
      },
    );
    expectCommitOrder(received, taskIds, upTo(UPDATES), status);
    expect(seen.maxOpenPerTask).toBe(1);
  }, 180_000);
});

describe('a failing resource', () => {
  it('holds back only itself: another task flows meanwhile, and the failing one resumes in order', async () => {
    let stuck = '';
    let otherDone = false;
    const { receiver, status, seen } = await judgedReceiver((r) => {
      if (taskOf(r) !== stuck) {
        otherDone ||= versionOf(r) === 5;
        return false;
      }
      return !otherDone;
    });
    const sub = await subscribed(receiver.url);
    const [failing, flowing] = await createTasks(sub, 2);
    stuck = failing!;
    startWorker({ WEBHOOK_RETRY_DELAYS_MS: Array.from({ length: 12 }, () => '100').join(',') });

    await updateTasks(sub, [failing!], 5);
    await receiver.waitForCount(1);
    await updateTasks(sub, [flowing!], 5);
    await settled(sub.webhookId, 10);

    const ofFailing = receiver.received.filter((r) => taskOf(r) === failing);
    const flowingDoneAt = receiver.received.findIndex((r) => taskOf(r) === flowing && versionOf(r) === 5);
    // While the failing task's first update was retried, the other task's five all arrived, and none of the failing task's later ones.
    expect(
      ofFailing
        .filter((r) => receiver.received.indexOf(r) < flowingDoneAt)
        .map(versionOf)
        .every((v) => v === 1),
    ).toBe(true);
    expect(ofFailing.filter((r) => status.get(r) === 500).length).toBeGreaterThan(0);
    expectCommitOrder(receiver.received, [failing!, flowing!], upTo(5), status);
    expect(seen.maxOpenPerTask).toBe(1);
  }, 60_000);
});

describe('an exhausted delivery', () => {
  it('releases the next of its resource once the subscription, disabled by it, is re-enabled', async () => {
    const { receiver, status } = await judgedReceiver((r) => versionOf(r) === 1);
    const sub = await subscribed(receiver.url);
    const [taskId] = await createTasks(sub, 1);
    startWorker({ WEBHOOK_RETRY_DELAYS_MS: '20,20' });

    await updateTasks(sub, [taskId!], 3);
    await waitFor(async () => ((await h.db.webhook.findUniqueOrThrow({ where: { id: sub.webhookId } })).status === 'disabled' ? true : undefined));
    // Three attempts of the first update, none of the later ones.
    expect(receiver.received.map(versionOf)).toEqual([1, 1, 1]);

    await as(h.app, sub.org.liveKey).patch(`/v1/webhooks/${sub.webhookId}`, { status: 'active' }).expect(200);
    await settled(sub.webhookId, 2);
    expect(receiver.received.map(versionOf)).toEqual([1, 1, 1, 2, 3]);
    expect(receiver.received.slice(3).map((r) => status.get(r))).toEqual([200, 200]);
    expect(await h.db.delivery.count({ where: { webhookId: sub.webhookId, status: 'failed' } })).toBe(1);
  }, 60_000);
});

describe('recovery', () => {
  it('sends in order: a resent failed delivery and the missed ones of its task, one at a time, each retried before the next', async () => {
    let recovering = false;
    const triedInRecovery = new Set<string>();
    // Before recovery every request fails; after it, each delivery's first attempt: unordered, its retry would land after the next update.
    const { receiver, status, seen } = await judgedReceiver(
      (r) => !recovering || (!triedInRecovery.has(r.json.deliveryId) && Boolean(triedInRecovery.add(r.json.deliveryId))),
      () => 20,
    );
    const since = new Date(Date.now() - 1000).toISOString();
    const sub = await subscribed(receiver.url);
    const [taskId] = await createTasks(sub, 1);
    startWorker({ WEBHOOK_RETRY_DELAYS_MS: '20,20' });

    await updateTasks(sub, [taskId!], 1);
    await waitFor(async () => ((await h.db.webhook.findUniqueOrThrow({ where: { id: sub.webhookId } })).status === 'disabled' ? true : undefined));
    // Made while the subscription is disabled: missed, no delivery.
    for (const version of [2, 3, 4])
      await as(h.app, sub.org.liveKey)
        .patch(`/v1/tasks/${taskId}`, { title: `v${version}` })
        .expect(200);
    expect(await h.db.delivery.count({ where: { webhookId: sub.webhookId } })).toBe(1);

    recovering = true;
    await as(h.app, sub.org.liveKey).patch(`/v1/webhooks/${sub.webhookId}`, { status: 'active' }).expect(200);
    expect((await as(h.app, sub.org.liveKey).post(`/v1/webhooks/${sub.webhookId}/recover`, { since }).expect(202)).body).toEqual({ recovered: 4 });
    await settled(sub.webhookId, 4);

    expect(receiver.received.slice(0, 3).map(versionOf)).toEqual([1, 1, 1]);
    expectCommitOrder(receiver.received.slice(3), [taskId!], upTo(4), status);
    expect(seen.maxOpenPerTask).toBe(1);
  }, 60_000);
});

describe('PATCH of ordering with a backlog', () => {
  /** Deliveries of `tasks` x `updates` waiting behind a request held by the receiver (maxConcurrency 1), under `ordering`. */
  async function backlog(ordering: 'none' | 'resource', fails: (r: Received) => boolean) {
    const gate = deferred();
    const { receiver, status } = await judgedReceiver(fails);
    const held = await receiverFor((n) => (n === 0 ? { until: gate.promise } : {}));
    const sub = await subscribed(held.url, { ordering, maxConcurrency: 1 });
    const taskIds = await createTasks(sub, 3);
    // The held request stays in flight (no timeout) until the test opens the gate.
    startWorker({ WEBHOOK_TIMEOUT_MS: '30000' });
    await updateTasks(sub, taskIds, 4);
    await held.waitForCount(1);
    // The held request is one task's first update: in flight while the mode changes.
    await as(h.app, sub.org.liveKey).patch(`/v1/webhooks/${sub.webhookId}`, { url: receiver.url }).expect(200);
    return { sub, taskIds, gate, receiver, status, first: held.received[0]! };
  }

  const deliveryIds = (received: Received[]) => received.map((r) => r.json.deliveryId);

  it('to resource: what is not yet attempted goes in order, behind the one in flight, each delivery once', async () => {
    // Each delivery's first attempt fails: unordered, a retry would land after the next update.
    const failedOnce = new Set<string>();
    const fails = (r: Received) => !failedOnce.has(r.json.deliveryId) && Boolean(failedOnce.add(r.json.deliveryId));
    const { sub, taskIds, gate, receiver, status, first } = await backlog('none', fails);

    await as(h.app, sub.org.liveKey).patch(`/v1/webhooks/${sub.webhookId}`, { ordering: 'resource', maxConcurrency: 10 }).expect(200);
    // The other tasks' updates all go; none of the held task's while its first is in flight.
    await settled(sub.webhookId, 8);
    expect(receiver.received.filter((r) => taskOf(r) === taskOf(first))).toEqual([]);
    gate.resolve();
    await settled(sub.webhookId, 12);

    // The held first update (answered on the old URL) is not sent again; every other one arrives, each once, in order.
    expect(new Set(deliveryIds(receiver.received)).size).toBe(11);
    expect(deliveryIds(receiver.received)).not.toContain(first.json.deliveryId);
    expectCommitOrder(
      receiver.received.filter((r) => taskOf(r) !== taskOf(first)),
      taskIds.filter((id) => id !== taskOf(first)),
      upTo(4),
      status,
    );
    expect(receiver.received.filter((r) => taskOf(r) === taskOf(first) && status.get(r) === 200).map(versionOf)).toEqual([2, 3, 4]);
  }, 60_000);

  it('to none: the deliveries held behind one in flight go at once, each once', async () => {
    const { sub, gate, receiver, first } = await backlog('resource', () => false);

    await as(h.app, sub.org.liveKey).patch(`/v1/webhooks/${sub.webhookId}`, { ordering: 'none', maxConcurrency: 10 }).expect(200);
    expect(await h.db.delivery.count({ where: { webhookId: sub.webhookId, resourceId: { not: null } } })).toBe(0);
    // Every other update arrives while the held task's first is still in flight, its later ones too.
    await receiver.waitForCount(11);
    expect(receiver.received.filter((r) => taskOf(r) === taskOf(first))).toHaveLength(3);
    gate.resolve();
    await settled(sub.webhookId, 12);
    expect(new Set(deliveryIds(receiver.received)).size).toBe(11);
    expect(receiver.received).toHaveLength(11);
  }, 60_000);
});

describe('the fan-out', () => {
  it("brings a resource's earlier undispatched events along, so an ordered subscription gets them first; an unordered one's rows carry no order", async () => {
    const receiver = await receiverFor();
    const sub = await subscribed(receiver.url);
    const unordered = (
      await as(h.app, sub.org.liveKey)
        .post('/v1/webhooks', { url: receiver.url, events: ['task.updated'] })
        .expect(201)
    ).body.id as string;
    const [taskId] = await createTasks(sub, 1);
    await updateTasks(sub, [taskId!], 2);
    const events = await h.db.outboxEvent.findMany({ where: { organizationId: sub.org.organization.id, type: 'task.updated' }, orderBy: { position: 'asc' } });
    expect(events.map((e) => (e.data as { title: string }).title)).toEqual(['v1', 'v2']);

    // The second event's job came first (the first one's still queued, or lost with Redis).
    await dispatchHandler({ work: deliveryWork(h.pool) }, () => undefined)({ eventIds: [events[1]!.id] });

    const rows = await h.db.delivery.findMany({ where: { eventId: { in: events.map((e) => e.id) } } });
    expect(rows).toHaveLength(4);
    expect(
      rows
        .filter((d) => d.webhookId === sub.webhookId)
        .map((d) => [d.resourceId, d.position])
        .sort(),
    ).toEqual(events.map((e) => [taskId, e.position]).sort());
    expect(rows.filter((d) => d.webhookId === unordered).every((d) => d.resourceId === null && d.position === null)).toBe(true);
    expect(await h.db.outboxEvent.count({ where: { id: { in: events.map((e) => e.id) }, dispatchedAt: null } })).toBe(0);

    startWorker();
    await settled(sub.webhookId, 2);
    expect(receiver.received.filter((r) => r.json.webhookId === sub.webhookId).map(versionOf)).toEqual([1, 2]);
  }, 60_000);

  it('leaves test sends and redeliveries out of the order: they go while a task is held back', async () => {
    let failing = true;
    const receiver = await receiverFor((_, r) => (r.json.test || !failing ? {} : r.json.data.title === 'v1' ? { status: 500 } : {}));
    const sub = await subscribed(receiver.url);
    const [taskId] = await createTasks(sub, 1);
    startWorker({ WEBHOOK_RETRY_DELAYS_MS: Array.from({ length: 12 }, () => '200').join(',') });
    await updateTasks(sub, [taskId!], 2);
    await receiver.waitForCount(1);
    await waitFor(async () => ((await h.db.delivery.count({ where: { webhookId: sub.webhookId } })) === 2 ? true : undefined));

    await as(h.app, sub.org.liveKey).post(`/v1/webhooks/${sub.webhookId}/test`, {}).expect(201);
    const second = await h.db.delivery.findFirstOrThrow({
      where: { webhookId: sub.webhookId, resourceId: taskId, position: { not: null } },
      orderBy: { position: 'desc' },
    });
    await as(h.app, sub.org.liveKey).post(`/v1/webhooks/${sub.webhookId}/deliveries/${second.id}/redeliver`, {}).expect(202);
    await waitFor(async () =>
      receiver.received.some((r) => r.json.deliveryId === second.id) && receiver.received.some((r) => r.json.test) ? true : undefined,
    );
    // Both arrived while the first update was still being retried.
    expect((await h.db.delivery.findFirstOrThrow({ where: { webhookId: sub.webhookId, status: 'pending', resourceId: taskId } })).id).not.toBe(second.id);
    failing = false;
    await settled(sub.webhookId, 3);
  }, 60_000);
});
