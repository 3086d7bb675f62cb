import { createHarness, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { receiversClosedAfterEach, type Script } from '@test-support/receiver';
import { createProjects, createToReceiver, percentile, tenant } from '@test-support/delivery-tenants';
import { startTestWorker } from '@test-support/worker-harness';

// docs/decisions.md#fair-delivery, measured black-box with the shipped concurrency, deadline and lease: one
// organization's slow receiver never holds up another organization's deliveries.
const QUIET_P95_LIMIT_MS = 1_000;
const SHIPPED = { WORKER_CONCURRENCY: '50', WEBHOOK_TIMEOUT_MS: '5000' };

let h: Harness;
beforeAll(() => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
});
afterAll(() => h.close());

const receiverFor = receiversClosedAfterEach();
const workers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
});
function startWorker(env: NodeJS.ProcessEnv) {
  const worker = startTestWorker({ prefix: h.deps.config.redisPrefix, env });
  workers.push(worker);
}

describe('a noisy neighbour', () => {
  it.each<[string, Script]>([
    ['answers after 4 s', () => ({ status: 200, delayMs: 4_000 })],
    ['never answers', () => 'hold'],
  ])(
    'whose receiver %s, with 300 attempts queued, delays another organization by under 1 s (p95)',
    async (_, slowly) => {
      const slow = await receiverFor(slowly);
      const quick = await receiverFor();
      const noisy = await tenant(h, [slow.url]);
      const quiet = await tenant(h, [quick.url]);
      startWorker(SHIPPED);

      await createProjects(h, noisy.org, 300, 10);
      // The slow subscription has its maxConcurrency (10 by default) in flight, and no more.
      await waitFor(async () => (slow.load.open === 10 ? true : undefined), { timeoutMs: 20_000 });
      const askedAt = await createProjects(h, quiet.org, 20);
      await quick.waitForCount(20);

      const latencies = createToReceiver(askedAt, quick.received);
      console.info(`quiet organization, create to receiver: p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms`);
      expect(latencies).toHaveLength(20);
      expect(percentile(latencies, 95)).toBeLessThan(QUIET_P95_LIMIT_MS);
      expect(slow.load.maxOpen).toBe(10);
      // Nothing lost: every event of the noisy organization has its delivery, waiting or made.
      expect(await h.db.delivery.count({ where: { webhookId: noisy.webhookIds[0] } })).toBe(300);
    },
    40_000,
  );
});

describe('an organization with twenty busy subscriptions', () => {
  it('gets no more of the workers than one with a single busy subscription, and does not hold up another organization', async () => {
    const slow = await receiverFor(() => ({ status: 200, delayMs: 2_000 }));
    const quick = await receiverFor();
    const many = await tenant(
      h,
      Array.from({ length: 20 }, (_, i) => `${slow.url}?subscription=${i}`),
    );
    const one = await tenant(h, [quick.url]);
    // Without a budget per organization, the twenty (10 each) would take all 20 slots.
    startWorker({ ...SHIPPED, WORKER_CONCURRENCY: '20' });

    await createProjects(h, many.org, 20, 10);
    await waitFor(async () => (slow.load.open === 10 ? true : undefined), { timeoutMs: 20_000 });
    const askedAt = await createProjects(h, one.org, 20);
    await quick.waitForCount(20);

    const latencies = createToReceiver(askedAt, quick.received);
    console.info(`beside twenty busy subscriptions, create to receiver: p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms`);
    expect(percentile(latencies, 95)).toBeLessThan(QUIET_P95_LIMIT_MS);
    // The largest maxConcurrency of its subscriptions (10) is the organization's budget, shared in turn.
    expect(slow.load.maxOpen).toBe(10);
    // In turn by subscription: the first ten attempts went to ten different subscriptions.
    expect(new Set(slow.received.slice(0, 10).map((r) => r.json.webhookId)).size).toBe(10);
  }, 40_000);
});

describe("a receiver's Retry-After", () => {
  it('pauses the subscription until then: nothing is sent before it, then every delivery goes, the waiting ones with no failure', async () => {
    const receiver = await receiverFor((n) => (n === 0 ? { status: 429, headers: { 'Retry-After': '2' } } : { status: 200 }));
    const { org, webhookIds } = await tenant(h, [receiver.url]);
    startWorker({});

    await createProjects(h, org, 1);
    const [refused] = await receiver.waitForCount(1);
    const pausedUntil = await waitFor(async () => (await h.db.webhook.findUniqueOrThrow({ where: { id: webhookIds[0] } })).pausedUntil ?? undefined);
    expect(pausedUntil.getTime()).toBeGreaterThanOrEqual(refused!.at + 1_000);
    await createProjects(h, org, 4);

    const all = await receiver.waitForCount(6, 10_000);
    for (const later of all.slice(1)) expect(later.at).toBeGreaterThanOrEqual(refused!.at + 2_000 - 50);
    const deliveries = await waitFor(async () => {
      const found = await h.db.delivery.findMany({ where: { webhookId: webhookIds[0] }, include: { attempts: true } });
      return found.every((d) => d.status === 'succeeded') ? found : undefined;
    });
    const attempts = deliveries.map((d) => d.attempts.map((a) => a.responseStatus)).sort((a, b) => b.length - a.length);
    expect(attempts).toEqual([[429, 200], [200], [200], [200], [200]].map((statuses) => expect.arrayContaining(statuses)));
    expect(deliveries.map((d) => d.attemptCount).sort()).toEqual([1, 1, 1, 1, 2]);
  }, 30_000);
});
