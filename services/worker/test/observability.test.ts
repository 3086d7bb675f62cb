import { createLogger, loadWorkerConfig } from '@worktrack/config';
import { as, createHarness, createOrg, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { captureLines } from '@test-support/logs';
import { parsePrometheus, sampleValue } from '@test-support/prometheus';
import { startWorker, type RunningWorker } from '../src/compose';
import { startReceiver } from '@test-support/receiver';
import { TEST_ENV } from '@test-support/worker-harness';

const log = captureLines();
let h: Harness;
let worker: RunningWorker;

beforeAll(async () => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  const config = loadWorkerConfig({ ...process.env, ...TEST_ENV, REDIS_PREFIX: h.deps.config.redisPrefix });
  worker = await startWorker(config, createLogger('info', 'worker', 'json', log.stream));
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

const scrape = async () => {
  const res = await fetch(`${worker.healthUrl}/metrics`);
  expect(res.status).toBe(200);
  return parsePrometheus(await res.text());
};

describe('the worker health port', () => {
  it('counts a delivery in /metrics and logs the attempt with its deliveryId', async () => {
    const receiver = await startReceiver();
    try {
      const org = await createOrg(h.db);
      const webhook = await as(h.app, org.liveKey).post('/v1/webhooks', { url: receiver.url, events: ['project.created'], secret: 'secret_observed_secret' });
      const before = sampleValue(await scrape(), 'webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0;
      await as(h.app, org.liveKey).post('/v1/projects', { name: 'Observed' }).expect(201);
      const [delivery] = await receiver.waitForCount(1);

      const line = await waitFor(async () => log.lines().find((l) => l.msg === 'delivery attempt' && l.deliveryId === delivery!.json.deliveryId));
      expect(line).toMatchObject({
        webhookId: webhook.body.id,
        event: 'project.created',
        attempt: 1,
        status: 200,
        outcome: 'succeeded',
        durationMs: expect.any(Number),
      });
      expect(log.text()).not.toContain('secret_observed_secret');

      const after = await scrape();
      expect(sampleValue(after, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBe(before + 1);
      expect(sampleValue(after, 'webhook_delivery_duration_seconds_count')).toBeGreaterThanOrEqual(1);
      expect(sampleValue(after, 'webhook_event_to_delivery_seconds_count')).toBeGreaterThanOrEqual(1);
      expect(sampleValue(after, 'outbox_undispatched_events')).toEqual(expect.any(Number));
      // The event's job made the first attempt, and completes once it is recorded.
      const completed = await waitFor(async () => {
        const events = sampleValue(await scrape(), 'queue_jobs', { queue: 'events', state: 'completed' }) ?? 0;
        return events >= 1 ? events : undefined;
      });
      expect(completed).toBeGreaterThanOrEqual(1);
    } finally {
      await receiver.close();
    }
  });

  it('serves the queue dashboard read-only at /queues', async () => {
    const page = await fetch(`${worker.healthUrl}/queues`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const queues = (await (await fetch(`${worker.healthUrl}/queues/api/queues`)).json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    expect(queues.queues.map((q) => [q.name, q.readOnlyMode]).sort()).toEqual([
      ['deliveries', true],
      ['events', true],
    ]);
  });
});

describe('the queue dashboard with QUEUE_DASHBOARD_TOKEN', () => {
  it('asks for the token, and with it allows actions', async () => {
    const token = 'a-token-of-sixteen-chars';
    const config = loadWorkerConfig({ ...process.env, ...TEST_ENV, REDIS_PREFIX: `${h.deps.config.redisPrefix}-tok`, QUEUE_DASHBOARD_TOKEN: token });
    const guarded = await startWorker(config, createLogger('silent', 'worker'));
    try {
      const refused = await fetch(`${guarded.healthUrl}/queues/api/queues`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('Basic');
      const basic = `Basic ${Buffer.from(`admin:${token}`).toString('base64')}`;
      const allowed = (await (await fetch(`${guarded.healthUrl}/queues/api/queues`, { headers: { Authorization: basic } })).json()) as {
        queues: { readOnlyMode: boolean }[];
      };
      expect(allowed.queues.every((q) => q.readOnlyMode === false)).toBe(true);
    } finally {
      await guarded.close();
    }
  });
});
