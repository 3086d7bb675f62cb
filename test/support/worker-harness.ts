import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { createLogger, loadWorkerConfig } from '@worktrack/config';
import { createHarness, type Harness } from './api-harness';
import { exitCode, freePort, runBundled, waitForHttp } from './processes';
import { startReceiver, type Receiver } from './receiver';
import { copyTemplateDatabase } from './template-copy';
import { startWorker } from '../../services/worker/src/compose';

/** Test-sized settings: quick retries and sweep, loopback receivers allowed, a health port of its own. */
export const TEST_ENV: NodeJS.ProcessEnv = {
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_RETRY_DELAYS_MS: '20,20,20,20,20,20',
  WORKER_CONCURRENCY: '5',
  WORKER_HEALTH_PORT: '0',
  WORKER_SWEEP_INTERVAL_MS: '200',
  WORKER_SWEEP_GRACE_MS: '300',
  // No SMTP_URL: mails go to files, out of the working tree.
  MAIL_DIR: path.join(os.tmpdir(), 'worktrack-test-mail'),
};

export interface TestWorkerOptions {
  prefix: string;
  /** Settings that override the test ones, as environment variables. */
  env?: NodeJS.ProcessEnv;
  /** How long a worker process may take to be ready (20 s unless told). */
  readyWithinMs?: number;
}

/**
 * The shipped worker (`startWorker`, as main.ts runs it) in-process under the given Redis prefix.
 * It consumes its queues from the call on.
 */
export function startTestWorker({ prefix, env = {} }: TestWorkerOptions) {
  const config = loadWorkerConfig({ ...process.env, ...TEST_ENV, REDIS_PREFIX: prefix, ...env });
  const started = startWorker(config, createLogger('silent', 'test-worker'));
  return { close: async () => (await started).close() };
}

/**
 * The API harness with the shipped worker in-process on its queues, loopback receivers allowed;
 * `workerEnv` overrides the worker's test settings. Its `close` stops the worker, then the app.
 */
export function createHarnessWithWorker(workerEnv: NodeJS.ProcessEnv = {}): Harness {
  const harness = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  const worker = startTestWorker({ prefix: harness.deps.config.redisPrefix, env: workerEnv });
  return {
    ...harness,
    async close() {
      await worker.close();
      await harness.close();
    },
  };
}

/**
 * The worker as its own process (the image's bundle of `main.ts`) under the given Redis prefix, with the shipped settings
 * apart from its health port, the loopback receivers and `env`; resolves once it is ready.
 */
export async function startWorkerProcess({ prefix, env = {}, readyWithinMs }: TestWorkerOptions) {
  const healthPort = await freePort();
  const child = runBundled('worker', [], {
    REDIS_PREFIX: prefix,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WORKER_HEALTH_PORT: String(healthPort),
    ...env,
  });
  // One that is not ready in time is stopped, not left consuming the test's queues and database.
  await waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, readyWithinMs).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return child;
}

export interface OwnDatabaseAndQueues {
  h: Harness;
  /** Worker processes on these queues, started together; stopped (SIGTERM) after the body unless it killed them. */
  startWorkerProcesses(count: number, env?: NodeJS.ProcessEnv): Promise<ChildProcess[]>;
  /**
   * A worker process started now and frozen (SIGSTOP) once ready, until `resume`: a survivor ready
   * before a crash whose start is neither timed nor racing the work it is to take over. Start it
   * before the work exists: while frozen it claims nothing.
   */
  startStandbyWorkerProcess(env?: NodeJS.ProcessEnv): Promise<{ resume(): void }>;
  /** A receiver closed after the body. */
  receiverFor(...args: Parameters<typeof startReceiver>): Promise<Receiver>;
}

/**
 * A harness on a database and a Redis prefix of its own, so that cases which mostly wait (on a
 * receiver, a rate, a lease) can run at once (`it.concurrent`) without one's workers taking another's
 * deliveries (workers claim them in Postgres, whatever queues they consume); the workers it starts
 * use both. What the body started is stopped after it.
 */
export async function onOwnDatabaseAndQueues(body: (queues: OwnDatabaseAndQueues) => Promise<void>): Promise<void> {
  const databaseUrl = await copyTemplateDatabase();
  const h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', DATABASE_URL: databaseUrl });
  const workers: ChildProcess[] = [];
  const receivers: Receiver[] = [];
  const start = async (env: NodeJS.ProcessEnv) => {
    const worker = await startWorkerProcess({ prefix: h.deps.config.redisPrefix, env: { DATABASE_URL: databaseUrl, ...env } });
    workers.push(worker);
    return worker;
  };
  try {
    await body({
      h,
      startWorkerProcesses: (count, env = {}) => Promise.all(Array.from({ length: count }, () => start(env))),
      async startStandbyWorkerProcess(env = {}) {
        const worker = await start(env);
        worker.kill('SIGSTOP');
        return { resume: () => worker.kill('SIGCONT') };
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
        // A standby left frozen by a failed body would never act on the SIGTERM.
        worker.kill('SIGCONT');
        worker.kill('SIGTERM');
        await exitCode(worker);
      }),
    );
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await h.close();
  }
}
