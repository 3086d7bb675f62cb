import Joi from 'joi';
import { commonEnv, commonSettings, delayList } from './env';
import { envSchema, maybeUnset, parseEnv } from './env-schema';

export const workerEnvSchema = envSchema({
  ...commonEnv,
  WORKER_CONCURRENCY: Joi.number().integer().min(1).max(1000).default(50),
  WEBHOOK_RETRY_DELAYS_MS: delayList.default('60000,300000,900000,3600000,10800000,21600000'),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(1).default(5000),
  WORKER_HEALTH_HOST: Joi.string().default('127.0.0.1'),
  WORKER_HEALTH_PORT: Joi.number().port().default(3001),
  WORKER_SWEEP_INTERVAL_MS: Joi.number().integer().min(100).default(5_000),
  WORKER_SWEEP_GRACE_MS: Joi.number().integer().min(0).default(10_000),
  WORKER_LOCK_DURATION_MS: Joi.number().integer().min(500).default(5_000),
  QUEUE_DASHBOARD_TOKEN: maybeUnset(Joi.string()).min(16).allow(''),
  DELIVERY_RETENTION_DAYS: Joi.number().integer().min(1).default(30),
});

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parseEnv(workerEnvSchema, env);
  return {
    ...commonSettings(e),
    concurrency: e.WORKER_CONCURRENCY,
    retryDelaysMs: e.WEBHOOK_RETRY_DELAYS_MS.split(',').map(Number),
    timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    healthHost: e.WORKER_HEALTH_HOST,
    healthPort: e.WORKER_HEALTH_PORT,
    sweepIntervalMs: e.WORKER_SWEEP_INTERVAL_MS,
    sweepGraceMs: e.WORKER_SWEEP_GRACE_MS,
    /**
     * BullMQ's job lock, renewed while the job runs. A killed worker's jobs are handed to another
     * worker between half and one and a half of it after the kill.
     */
    lockDurationMs: e.WORKER_LOCK_DURATION_MS,
    /** Unset: the queue dashboard at /queues is read-only and open on the health port; set: it asks for the token and allows actions. */
    queueDashboardToken: e.QUEUE_DASHBOARD_TOKEN || null,
    /** Deliveries (with their attempts) finished this many days ago are deleted by the sweep. */
    deliveryRetentionDays: e.DELIVERY_RETENTION_DAYS,
  };
}
