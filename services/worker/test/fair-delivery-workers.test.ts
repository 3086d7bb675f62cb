import type { ChildProcess } from 'node:child_process';
import { exitCode } from '@test-support/processes';
import { createHarness, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver, type Receiver } from '@test-support/receiver';
import { createProjects, tenant } from '@test-support/delivery-tenants';
import { startWorkerProcess } from '@test-support/worker-harness';

// docs/decisions.md#fair-delivery: a subscription's caps hold across every worker, and a killed worker's capped
// attempts are taken over (docs/decisions.md#operations: within 10 s) without breaking them. Each case mostly
// waits (on the receiver, the rate, a lease): the cases run at once, each on queues of its own.

interface Fleet {
  h: Harness;
  startWorkers(count: number): Promise<ChildProcess[]>;
  receiverFor(...args: Parameters<typeof startReceiver>): Promise<Receiver>;
}

/** A harness under a Redis prefix of its own, worker processes on its queues and receivers, all stopped after `body`. */
async function onOwnQueues(body: (fleet: Fleet) => Promise<void>): Promise<void> {
  const h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  const workers: ChildProcess[] = [];
  const receivers: Receiver[] = [];
  try {
    await body({
      h,
      async startWorkers(count) {
        const started = await Promise.all(Array.from({ length: count }, () => startWorkerProcess({ prefix: h.deps.config.redisPrefix })));
        workers.push(...started);
        return started;
      },
      async receiverFor(...args) {
        const receiver = await startReceiver(...args);
        receivers.push(receiver);
        return receiver;
      },
    });
  } finally {
    await Promise.all(
      workers.map(async (worker) => {
        worker.kill('SIGTERM');
        await exitCode(worker);
      }),
    );
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await h.close();
  }
}

// Concurrent cases run at once only as siblings: one block.
describe('caps across worker processes', () => {
  it.concurrent(
    'maxConcurrency holds across two worker processes: never more attempts open at the receiver, and all of them made',
    () =>
      onOwnQueues(async ({ h, startWorkers, receiverFor }) => {
        const receiver = await receiverFor(() => ({ status: 200, delayMs: 300 }));
        const { org, webhookIds } = await tenant(h, [receiver.url], { maxConcurrency: 3 });
        await startWorkers(2);

        await createProjects(h, org, 30, 10);
        await receiver.waitForCount(30, 20_000);

        expect(receiver.load.maxOpen).toBe(3);
        await waitFor(async () => ((await h.db.delivery.count({ where: { webhookId: webhookIds[0], status: 'succeeded' } })) === 30 ? true : undefined));
      }),
    40_000,
  );

  it.concurrent(
    'rateLimit holds across two worker processes within 10% over 10 s',
    () =>
      onOwnQueues(async ({ h, startWorkers, receiverFor }) => {
        const rate = 10;
        const receiver = await receiverFor();
        const { org } = await tenant(h, [receiver.url], { rateLimit: rate });
        // The backlog first: the window then measures the limit alone, not how fast a busy machine makes events.
        await createProjects(h, org, 150, 10);
        await startWorkers(2);
        const [first] = await receiver.waitForCount(1);
        await waitFor(async () => (receiver.received.at(-1)!.at >= first!.at + 10_000 ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });

        const inWindow = receiver.received.filter((r) => r.at < first!.at + 10_000).length;
        console.info(`rateLimit ${rate}/s across two workers: ${inWindow} attempts in 10 s`);
        expect(inWindow).toBeLessThanOrEqual(rate * 10 * 1.1);
        expect(inWindow).toBeGreaterThanOrEqual(rate * 10 * 0.9);
      }),
    40_000,
  );

  it.concurrent(
    'a killed worker has its capped attempts taken over within 10 s, the cap held meanwhile',
    () =>
      onOwnQueues(async ({ h, startWorkers, receiverFor }) => {
        const held = 2;
        const receiver = await receiverFor((n) => (n < held ? 'hold' : { status: 200 }));
        const { org, webhookIds } = await tenant(h, [receiver.url], { maxConcurrency: held });
        const [doomed] = await startWorkers(1);

        await createProjects(h, org, 4);
        await receiver.waitForCount(held);
        // The other two wait under the cap while the held attempts are in flight.
        await waitFor(async () =>
          (await h.db.delivery.count({ where: { webhookId: webhookIds[0], status: 'pending', lockedUntil: null } })) === 2 ? true : undefined,
        );
        expect(receiver.received).toHaveLength(held);

        const killedAt = Date.now();
        doomed!.kill('SIGKILL');
        await exitCode(doomed!);
        await startWorkers(1);
        await waitFor(async () => ((await h.db.delivery.count({ where: { webhookId: webhookIds[0], status: 'succeeded' } })) === 4 ? true : undefined), {
          timeoutMs: 10_000 - (Date.now() - killedAt),
          intervalMs: 50,
        });
        console.info(`killed worker's capped attempts taken over ${Date.now() - killedAt} ms after SIGKILL`);
        expect(receiver.load.maxOpen).toBe(held);
        expect(receiver.received).toHaveLength(4 + held);
      }),
    40_000,
  );
});
