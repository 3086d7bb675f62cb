import { Worker } from 'bullmq';
import { databaseErrorReporter } from '@worktrack/config';
import { jobs as catalog, validatePayload, type QueueLayout, type RedisClient } from '@worktrack/queue';
import { tracedAttempts } from './attempt-tracing';
import { DeliveryScheduler } from './delivery-scheduler';
import type { DeliveryPolicy, WorkerDeps } from './deps';
import { deliveryHandler } from './handlers/deliver-webhook';
import { dispatchHandler } from './handlers/dispatch-event';
import { sweep } from './sweep';

export interface WorkerRuntimeOptions {
  connection: RedisClient;
  /** Every shard of both kinds is consumed. */
  layout: QueueLayout;
  concurrency: number;
  policy: DeliveryPolicy;
  /** How often a worker with free slots claims due deliveries unprompted. */
  claimPollMs: number;
  sweepIntervalMs: number;
  sweepGraceMs: number;
  deliveryRetentionDays: number;
  /** BullMQ's job lock, renewed while the job runs; a dead worker's jobs return to the queue within 1.5 times it. */
  lockDurationMs: number;
  /** Where the queues' own errors go (Redis unreachable: one plain line every few seconds). */
  onQueueError: (err: Error) => void;
}

export interface WorkerRuntime {
  /** Stops taking jobs, lets in-flight deliveries finish, stops the sweep. */
  close(): Promise<void>;
}

/**
 * Consumes the events queue (fan-out) and the deliveries queue, whose jobs only wake the claim: what
 * is sent next is decided by the fair claim in Postgres, not by the order of jobs in Redis. Runs the
 * reconciliation sweep.
 */
export function startWorkerRuntime(deps: WorkerDeps, options: WorkerRuntimeOptions): WorkerRuntime {
  const common = {
    connection: options.connection,
    prefix: options.layout.prefix,
    lockDuration: options.lockDurationMs,
    // A job is given back at the first check after its lock lapsed, having been marked at the check before.
    stalledInterval: options.lockDurationMs / 2,
  };
  // The attempts' records go through the scheduler, which claims in the same statement for the slots they free.
  const makeAttempt = tracedAttempts(deliveryHandler(deps, options.policy, (records) => scheduler.record(records)));
  const scheduler = new DeliveryScheduler(deps.work, makeAttempt, deps.logger, {
    concurrency: options.concurrency,
    claimMs: options.policy.claimMs,
    startWithinMs: options.policy.startWithinMs,
    pollMs: options.claimPollMs,
  });
  const dispatchEvent = dispatchHandler(deps, () => scheduler.wake());
  // The process's concurrency shared by the shards it consumes.
  const { events: eventShards, deliveries: deliveryShards } = options.layout;
  const perShard = (shards: string[]) => ({ ...common, concurrency: Math.ceil(options.concurrency / shards.length) });
  const events = eventShards.map(
    (name) => new Worker(name, async (job) => dispatchEvent(validatePayload(catalog.dispatchEvent.schema, job.data)), perShard(eventShards)),
  );
  const deliveries = deliveryShards.map(
    (name) =>
      new Worker(
        name,
        async (job) => {
          validatePayload(catalog.deliverWebhook.schema, job.data);
          scheduler.wake();
        },
        perShard(deliveryShards),
      ),
  );
  const workers = [...events, ...deliveries];
  for (const worker of workers) {
    worker.on('error', options.onQueueError);
    worker.on('failed', (job, err) => deps.logger.warn({ err, jobId: job?.id }, 'job failed'));
  }

  let sweeping: Promise<unknown> = Promise.resolve();
  const reportSweepError = databaseErrorReporter((err) => deps.logger.warn({ err }, 'sweep failed'));
  const timer = setInterval(() => {
    sweeping = sweep(deps, { graceMs: options.sweepGraceMs, deliveryRetentionDays: options.deliveryRetentionDays }).catch(reportSweepError);
  }, options.sweepIntervalMs);

  return {
    async close() {
      clearInterval(timer);
      // With Redis unreachable a graceful close would wait for it: its jobs return to the queue anyway.
      const force = options.connection.status !== 'ready';
      await Promise.all([...workers.map((worker) => worker.close(force)), sweeping]);
      await scheduler.close();
    },
  };
}
