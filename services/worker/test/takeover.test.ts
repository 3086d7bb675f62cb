import { Client } from 'pg';
import { as, createOrg, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { deferred } from '@test-support/receiver';
import { onOwnDatabaseAndQueues, startTestWorker } from '@test-support/worker-harness';

// docs/decisions.md#operations: a killed worker's work is taken over within 10 s, and a slow receiver (up to the
// 5 s deadline) is never taken for a dead worker. Both run with the shipped lock, lease and deadline. The cases
// mostly wait (on a lease, a slow receiver): they run at once, each on a database and queues of its own.
const TAKEOVER_LIMIT_MS = 10_000;

/** `count` subscriptions of a new organization to project.created at `url`: a project then makes a delivery to each. */
async function subscribe(h: Harness, url: string, count = 1) {
  const org = await createOrg(h.db);
  const webhookIds: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url, events: ['project.created'] });
    expect(res.status).toBe(201);
    webhookIds.push(res.body.id as string);
  }
  return { org, webhookIds };
}

const attemptsOf = (h: Harness, webhookIds: string[]) =>
  h.db.delivery.findMany({
    where: { webhookId: { in: webhookIds } },
    select: { status: true, attempts: { select: { attemptNumber: true, responseStatus: true } } },
  });

// Concurrent cases run at once only as siblings: one block.
describe('a worker and its deliveries', () => {
  it.concurrent(
    `killed, has its deliveries taken over within ${TAKEOVER_LIMIT_MS / 1000} s`,
    () =>
      onOwnDatabaseAndQueues(async ({ h, startWorkerProcesses, startStandbyWorkerProcess, receiverFor }) => {
        const held = 3;
        const receiver = await receiverFor((n) => (n < held ? 'hold' : { status: 200 }));
        // The survivor is ready before the crash: what is timed is the takeover, not a process's start,
        // and the held attempts cannot reach their deadline while it starts.
        const survivor = await startStandbyWorkerProcess();
        const [doomed] = await startWorkerProcesses(1);
        // One event, a delivery to each subscription: the held attempts start together.
        const { org, webhookIds } = await subscribe(h, receiver.url, held);
        await as(h.app, org.liveKey).post('/v1/projects', { name: 'Crash' }).expect(201);
        await receiver.waitForCount(held);

        const killedAt = Date.now();
        doomed!.kill('SIGKILL');
        survivor.resume();
        const deliveries = await waitFor(
          async () => {
            const all = await attemptsOf(h, webhookIds);
            return all.length === held && all.every((d) => d.status === 'succeeded') ? all : undefined;
          },
          { timeoutMs: killedAt + TAKEOVER_LIMIT_MS - Date.now(), intervalMs: 50 },
        );
        const takeoverMs = Date.now() - killedAt;
        console.info(`killed worker's ${held} deliveries taken over ${takeoverMs} ms after SIGKILL`);

        expect(takeoverMs).toBeLessThan(TAKEOVER_LIMIT_MS);
        // The killed attempts were never recorded; each delivery's first attempt is the survivor's.
        expect(deliveries.map((d) => d.attempts)).toEqual(Array.from({ length: held }, () => [{ attemptNumber: 1, responseStatus: 200 }]));
        expect(receiver.received).toHaveLength(2 * held);
      }),
    30_000,
  );

  it.concurrent(
    'to a slow receiver, is never taken for a dead worker: one attempt, though a second worker is idle',
    () =>
      onOwnDatabaseAndQueues(async ({ h, receiverFor }) => {
        const receiver = await receiverFor(() => ({ status: 200, delayMs: 4_000 }));
        const shipped = { WEBHOOK_TIMEOUT_MS: '5000' };
        const workers = [0, 1].map(() => startTestWorker({ prefix: h.deps.config.redisPrefix, env: { ...shipped, DATABASE_URL: h.deps.config.databaseUrl } }));
        try {
          const { org, webhookIds } = await subscribe(h, receiver.url);
          await as(h.app, org.liveKey).post('/v1/projects', { name: 'Slow' }).expect(201);
          const [delivery] = await waitFor(async () => {
            const all = await attemptsOf(h, webhookIds);
            return all[0]?.status === 'succeeded' ? all : undefined;
          });
          expect(delivery!.attempts).toEqual([{ attemptNumber: 1, responseStatus: 200 }]);
          expect(receiver.received).toHaveLength(1);
        } finally {
          await Promise.all(workers.map((worker) => worker.close()));
        }
      }),
    20_000,
  );

  it.concurrent(
    'killed between a POST and the group write recording it, has the attempt made again by another worker: a repeat, never a loss',
    () =>
      onOwnDatabaseAndQueues(async ({ h, startWorkerProcesses, receiverFor }) => {
        const quick = { WEBHOOK_TIMEOUT_MS: '2000', WORKER_LOCK_DURATION_MS: '1000' };
        // The first request waits for the gate; the others get 200 at once.
        const firstMayAnswer = deferred();
        const receiver = await receiverFor((n) => (n === 0 ? { until: firstMayAnswer.promise } : {}));
        const [doomed] = await startWorkerProcesses(1, quick);
        const rowLock = new Client({ connectionString: h.deps.config.databaseUrl });
        await rowLock.connect();
        try {
          const { org, webhookIds } = await subscribe(h, receiver.url);
          await as(h.app, org.liveKey).post('/v1/projects', { name: 'Repeated' }).expect(201);
          await waitFor(async () => (receiver.received.length === 1 ? true : undefined));
          const { deliveryId } = receiver.received[0]!.json;

          // The receiver has the POST; its record is held back by a lock on the delivery's row.
          await rowLock.query('BEGIN');
          await rowLock.query('SELECT 1 FROM "Delivery" WHERE id = $1 FOR UPDATE', [deliveryId]);
          firstMayAnswer.resolve();
          // Its session waits on this lock (pg_stat_activity may still show the claim, its previous statement).
          const blocked = await waitFor(async () => {
            const { rows } = await rowLock.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))');
            return rows[0];
          });
          // The attempt is still leased to the doomed worker: no other worker may make it meanwhile.
          const { lockedUntil } = await h.db.delivery.findUniqueOrThrow({ where: { id: deliveryId } });
          expect(lockedUntil!.getTime()).toBeGreaterThan(Date.now());

          // The crash: the process and its database sessions die before the write commits.
          doomed!.kill('SIGKILL');
          await rowLock.query('SELECT pg_terminate_backend($1)', [blocked.pid]);
          await rowLock.query('ROLLBACK');
          await startWorkerProcesses(1, quick);

          const [delivery] = await waitFor(
            async () => {
              const all = await attemptsOf(h, webhookIds);
              return all[0]?.status === 'succeeded' ? all : undefined;
            },
            { timeoutMs: 15_000, intervalMs: 50 },
          );
          expect(receiver.received.map((r) => r.json.deliveryId)).toEqual([deliveryId, deliveryId]);
          expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
          expect(delivery!.attempts).toEqual([{ attemptNumber: 1, responseStatus: 200 }]);
        } finally {
          await rowLock.end();
        }
      }),
    30_000,
  );
});
