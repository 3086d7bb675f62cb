import { as, createHarness, createOrg, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { spawn } from 'node:child_process';
import { exitCode, freePort, repoRoot, waitForHttp } from '@test-support/processes';
import { startReceiver } from '@test-support/receiver';
import { startWorkerProcess as startShippedWorkerProcess } from '@test-support/worker-harness';

let h: Harness;

beforeAll(() => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
});
afterAll(() => h.close());

const startWorkerProcess = () =>
  startShippedWorkerProcess({
    prefix: h.deps.config.redisPrefix,
    env: { WEBHOOK_TIMEOUT_MS: '2000', WORKER_SWEEP_INTERVAL_MS: '200', WORKER_SWEEP_GRACE_MS: '300' },
  });

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
      // A prefix of its own, so that its stalled-job checks never pace the other tests' workers.
      env: { ...process.env, REDIS_PREFIX: `${h.deps.config.redisPrefix}-pnpm`, WORKER_HEALTH_PORT: String(healthPort), LOG_LEVEL: 'warn' },
    });
    await waitForHttp(`http://127.0.0.1:${healthPort}/healthz`);
    pnpm.kill('SIGTERM');
    await exitCode(pnpm);
    await waitFor(() =>
      fetch(`http://127.0.0.1:${healthPort}/healthz`).then(
        () => undefined,
        () => true,
      ),
    );
  });
});
