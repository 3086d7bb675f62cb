import { createLogger, loadDotEnv, loadWorkerConfig, onShutdown } from '@worktrack/config';
import { createDb } from '@worktrack/db';
import { createRedisConnection, JobScheduler } from '@worktrack/queue';
import { WebhookDeliverer } from '@worktrack/webhooks';
import { startHealthServer } from './health-server';
import { startWorkerRuntime } from './worker-runtime';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadWorkerConfig();
  const logger = createLogger(config.logLevel, 'worker');
  const db = createDb(config.databaseUrl, { poolSize: Math.min(20, config.concurrency) });
  const connection = createRedisConnection(config.redisUrl, 'worker', 'worker');
  const producer = createRedisConnection(config.redisUrl, 'worker', 'worker-producer');
  const jobs = new JobScheduler(producer, config.redisPrefix, (err) => logger.warn({ err }, 'queue unavailable'));
  const deliverer = new WebhookDeliverer({ timeoutMs: config.timeoutMs, allowedHosts: config.webhookAllowedHosts });

  const runtime = startWorkerRuntime(
    { db, jobs, deliverer, logger },
    {
      connection,
      prefix: config.redisPrefix,
      concurrency: config.concurrency,
      policy: { retryDelaysMs: config.retryDelaysMs, claimMs: config.timeoutMs + 5_000 },
      sweepIntervalMs: config.sweepIntervalMs,
      sweepGraceMs: config.sweepGraceMs,
      lockDurationMs: config.lockDurationMs,
    },
  );
  const health = await startHealthServer({ db, redis: producer }, config.healthHost, config.healthPort);
  logger.info({ concurrency: config.concurrency, health: `http://${config.healthHost}:${config.healthPort}` }, 'worker started');

  onShutdown(logger, async () => {
    await runtime.close();
    await Promise.all([jobs.close(), deliverer.close()]);
    // Last, so that a closed health port means no job is running any more.
    health.close();
    connection.disconnect();
    producer.disconnect();
    await db.$disconnect();
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
