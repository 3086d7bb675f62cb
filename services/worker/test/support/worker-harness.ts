import { createLogger } from '@worktrack/config';
import { createDb } from '@worktrack/db';
import { createRedisConnection, JobScheduler } from '@worktrack/queue';
import { WebhookDeliverer } from '@worktrack/webhooks';
import { startWorkerRuntime } from '../../src/worker-runtime';

export interface TestWorkerOptions {
  prefix: string;
  retryDelaysMs?: number[];
  timeoutMs?: number;
  concurrency?: number;
}

/** A worker runtime in-process, wired like main.ts, with test-sized delays and sweep. */
export function startTestWorker(options: TestWorkerOptions) {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const db = createDb(process.env.DATABASE_URL!, { poolSize: 5 });
  const connection = createRedisConnection(redisUrl, 'worker', 'test-worker');
  const producer = createRedisConnection(redisUrl, 'worker', 'test-worker-producer');
  const jobs = new JobScheduler(producer, options.prefix, () => undefined);
  const timeoutMs = options.timeoutMs ?? 2_000;
  const deliverer = new WebhookDeliverer({ timeoutMs, allowedHosts: ['127.0.0.1'] });
  const runtime = startWorkerRuntime(
    { db, jobs, deliverer, logger: createLogger('silent', 'test-worker') },
    {
      connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 20,
      policy: { retryDelaysMs: options.retryDelaysMs ?? [20, 20, 20, 20, 20, 20], claimMs: timeoutMs + 1_000 },
      sweepIntervalMs: 200,
      sweepGraceMs: 300,
      lockDurationMs: 2_000,
    },
  );
  return {
    async close() {
      await runtime.close();
      await Promise.all([jobs.close(), deliverer.close()]);
      connection.disconnect();
      producer.disconnect();
      await db.$disconnect();
    },
  };
}
