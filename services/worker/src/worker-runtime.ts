import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobs as catalog, validatePayload } from '@worktrack/queue';
import { DeliveryScheduler } from './delivery-scheduler';
import type { DeliveryPolicy, WorkerDeps } from './deps';
import { deliveryHandler } from './handlers/deliver-webhook';
import { dispatchHandler } from './handlers/dispatch-event';
import { sweep } from './sweep';

export interface WorkerRuntimeOptions {
  connection: Redis;
  prefix: string;
  concurrency: number;
  policy: DeliveryPolicy;
  /** How often a worker with free slots claims due deliveries unprompted. */
  claimPollMs: number;
  sweepIntervalMs: number;
  sweepGraceMs: number;
  deliveryRetentionDays: number;
  /** BullMQ's job lock, renewed while the job runs; a dead worker's jobs return to the queue within 1.5 times it. */
  lockDurationMs: number;
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
    prefix: options.prefix,
    lockDuration: options.lockDurationMs,
    // A job is given back at the first check after its lock lapsed, having been marked at the check before.
    stalledInterval: options.lockDurationMs / 2,
  };
  const scheduler = new DeliveryScheduler(deps.sql, deliveryHandler(deps, options.policy), deps.logger, {
    concurrency: options.concurrency,
    claimMs: options.policy.claimMs,
    pollMs: options.claimPollMs,
  });
  const dispatchEvent = dispatchHandler(deps, () => scheduler.wake());
  const events = new Worker(catalog.dispatchEvent.queue, async (job) => dispatchEvent(validatePayload(catalog.dispatchEvent.schema, job.data)), {
    ...common,
    concurrency: options.concurrency,
  });
  const deliveries = new Worker(
    catalog.deliverWebhook.queue,
    async (job) => {
      validatePayload(catalog.deliverWebhook.schema, job.data);
      scheduler.wake();
    },
    { ...common, concurrency: options.concurrency },
  );
  for (const worker of [events, deliveries]) {
    worker.on('error', (err) => deps.logger.error({ err }, 'queue worker error'));
    worker.on('failed', (job, err) => deps.logger.warn({ err, jobId: job?.id }, 'job failed'));
  }

  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweep(deps, { graceMs: options.sweepGraceMs, deliveryRetentionDays: options.deliveryRetentionDays }).catch((err: unknown) =>
      deps.logger.warn({ err }, 'sweep failed'),
    );
  }, options.sweepIntervalMs);

  return {
    async close() {
      clearInterval(timer);
      await Promise.all([events.close(), deliveries.close(), sweeping]);
      await scheduler.close();
    },
  };
}
