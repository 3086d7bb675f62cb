import type { AddressInfo } from 'node:net';
import { redisErrorReporter, type Logger, type WorkerConfig } from '@worktrack/config';
import { countDueDeliveries, createDatabase, deliveryWork, SecretBox, unscopedData } from '@worktrack/db';
import { createMetricsRegistry, registerBacklogGauges } from '@worktrack/metrics';
import { createMailer } from '@worktrack/mail';
import { createRedisConnection, JobScheduler, queueLayout } from '@worktrack/queue';
import { WebhookDeliverer } from '@worktrack/webhooks/deliver';
import { DeliveryMetrics } from './delivery-metrics';
import { RESPONSE_BODY_BYTES } from './handlers/attempt-response';
import { startHealthServer } from './health-server';
import { startWorkerRuntime } from './worker-runtime';

/**
 * How long a claim outlives the HTTP deadline: the database round trips around the POST, and the wait
 * of a delivery claimed ahead for a slot (at most half of it). Until the lease ends no other worker
 * makes the attempt, so it must cover a live worker's whole attempt.
 */
const CLAIM_MARGIN_MS = 2_000;
/** How often a worker with free slots claims unprompted; a bound on how late a pause or rate limit is seen to end. */
const CLAIM_POLL_MS = 250;

/** The `webhook_deliveries_due` gauge counts up to this: enough to size any deployment, bounded to read. */
const DUE_DELIVERIES_CAP = 100_000;

export interface RunningWorker {
  healthUrl: string;
  /**
   * Answers /readyz with 503 at once, stops taking jobs, lets in-flight deliveries finish, then
   * closes the health port and every connection.
   */
  close(): Promise<void>;
}

/** The worker as it ships: its dependencies built from the settings, the queues consumed, the health port open. */
export async function startWorker(config: WorkerConfig, logger: Logger): Promise<RunningWorker> {
  const database = createDatabase(config.databaseUrl, { poolSize: Math.min(20, config.concurrency), pooler: config.databasePooler });
  const data = unscopedData(database);
  const connection = createRedisConnection(config.redis, 'worker', 'worker');
  const producer = createRedisConnection(config.redis, 'worker', 'worker-producer');
  const layout = queueLayout(config);
  const jobs = new JobScheduler(
    producer,
    layout,
    redisErrorReporter(config.redis, (err) => logger.warn({ err }, 'queue unavailable')),
  );
  const deliverer = new WebhookDeliverer({ timeoutMs: config.timeoutMs, allowedHosts: config.webhookAllowedHosts, maxResponseBytes: RESPONSE_BODY_BYTES });

  const mailer = createMailer(config.mail, logger);

  const metrics = createMetricsRegistry();
  const { queues } = jobs;
  registerBacklogGauges(metrics, {
    undispatchedEvents: data.countUndispatchedEvents,
    queueJobs: async () => Object.fromEntries(await Promise.all(queues.map(async (queue) => [queue.name, await queue.getJobCounts()] as const))),
    dueDeliveries: () => countDueDeliveries(database.pool, DUE_DELIVERIES_CAP),
  });

  const runtime = startWorkerRuntime(
    {
      data,
      work: deliveryWork(database.pool),
      jobs,
      deliverer,
      logger,
      metrics: new DeliveryMetrics(metrics),
      secrets: new SecretBox(config.secretsKeys),
      mailer,
      publicBaseUrl: config.publicBaseUrl,
    },
    {
      connection,
      layout,
      concurrency: config.concurrency,
      policy: { retryDelaysMs: config.retryDelaysMs, claimMs: config.timeoutMs + CLAIM_MARGIN_MS, startWithinMs: CLAIM_MARGIN_MS / 2 },
      claimPollMs: CLAIM_POLL_MS,
      sweepIntervalMs: config.sweepIntervalMs,
      sweepGraceMs: config.sweepGraceMs,
      deliveryRetentionDays: config.deliveryRetentionDays,
      lockDurationMs: config.lockDurationMs,
      onQueueError: redisErrorReporter(config.redis, (err) => logger.error({ err }, 'queue worker error')),
    },
  );
  let draining = false;
  const health = await startHealthServer(
    { data, redis: producer, metrics, queues, draining: () => draining },
    { host: config.healthHost, port: config.healthPort, dashboardToken: config.queueDashboardToken },
  );
  const { port } = health.address() as AddressInfo;

  return {
    healthUrl: `http://${config.healthHost}:${port}`,
    async close() {
      draining = true;
      await runtime.close();
      await Promise.all([jobs.close(), deliverer.close()]);
      mailer.close();
      // Only now, so that a closed health port means no job is running any more.
      health.close();
      connection.disconnect();
      producer.disconnect();
      await database.close();
    },
  };
}
