import { as, createHarness, createOrg, waitFor, type Harness } from '../../api/test/support/harness';
import { spawn } from 'node:child_process';
import { exitCode, freePort, repoRoot, runEntry, waitForHttp } from '../../../test/support/processes';
import { startReceiver } from './support/receiver';
import { startTestWorker } from './support/worker-harness';

let h: Harness;

beforeAll(() => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
});
afterAll(() => h.close());

async function startWorkerProcess() {
  const healthPort = await freePort();
  const child = runEntry('services/worker/src/main.ts', [], {
    REDIS_PREFIX: h.deps.config.redisPrefix,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_TIMEOUT_MS: '2000',
    WORKER_HEALTH_PORT: String(healthPort),
    WORKER_LOCK_DURATION_MS: '1000',
    WORKER_SWEEP_INTERVAL_MS: '200',
    WORKER_SWEEP_GRACE_MS: '300',
  });
  await waitForHttp(`http://127.0.0.1:${healthPort}/readyz`);
  return child;
}

async function subscribedOrg(url: string) {
  const org = await createOrg(h.db);
  const webhookId = (await as(h.app, org.liveKey).post('/v1/webhooks', { url, events: ['project.created'] })).body.id as string;
  return { org, webhookId };
}

describe('the worker process', () => {
  it('finishes an in-flight delivery on SIGTERM, then exits 0', async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 700 }));
    const worker = await startWorkerProcess();
    try {
      const { org, webhookId } = await subscribedOrg(receiver.url);
      await as(h.app, org.liveKey).post('/v1/projects', { name: 'Drain' }).expect(201);
      const [delivery] = await receiver.waitForCount(1);
      worker.kill('SIGTERM');
      expect(await exitCode(worker)).toBe(0);
      const log = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries/${delivery!.json.deliveryId}`);
      expect(log.body).toMatchObject({ status: 'succeeded', attempts: [{ responseStatus: 200 }] });
    } finally {
      worker.kill('SIGKILL');
      await receiver.close();
    }
  });

  it('stops gracefully when `pnpm start:worker` gets SIGTERM, though pnpm does not forward it', async () => {
    const healthPort = await freePort();
    const pnpm = spawn('pnpm', ['-s', 'start:worker'], {
      cwd: repoRoot,
      // A prefix of its own: its BullMQ stalled-job check would otherwise pause the other tests' for 30 s.
      env: { ...process.env, REDIS_PREFIX: `${h.deps.config.redisPrefix}-pnpm`, WORKER_HEALTH_PORT: String(healthPort), LOG_LEVEL: 'warn' },
    });
    await waitForHttp(`http://127.0.0.1:${healthPort}/healthz`);
    pnpm.kill('SIGTERM');
    await exitCode(pnpm);
    await waitFor(() => fetch(`http://127.0.0.1:${healthPort}/healthz`).then(() => undefined, () => true));
  });

  it('lets another worker complete a delivery whose worker was killed mid-request', async () => {
    const receiver = await startReceiver((n) => (n === 0 ? 'hold' : { status: 200 }));
    const doomed = await startWorkerProcess();
    const survivor = startTestWorker({ prefix: h.deps.config.redisPrefix });
    try {
      const { org, webhookId } = await subscribedOrg(receiver.url);
      await as(h.app, org.liveKey).post('/v1/projects', { name: 'Crash' }).expect(201);
      const [first] = await receiver.waitForCount(1);
      doomed.kill('SIGKILL');
      const [, second] = await receiver.waitForCount(2, 20_000);
      expect(second!.json.deliveryId).toBe(first!.json.deliveryId);
      const log = await waitFor(async () => {
        const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries/${first!.json.deliveryId}`);
        return res.body.status === 'succeeded' ? res.body : undefined;
      });
      expect(log.attempts).toEqual([expect.objectContaining({ attemptNumber: 1, responseStatus: 200 })]);
    } finally {
      doomed.kill('SIGKILL');
      await survivor.close();
      await receiver.close();
    }
  }, 40_000);
});
