import Joi from 'joi';
import type { JobsOptions } from 'bullmq';

/**
 * The one job catalog shared by producer (API, sweep) and consumer (worker): queue names,
 * job names, payload schemas and options. Job ids are the domain ids (a dispatch job's, its first
 * event's), so a republish of the same events or delivery never creates a second job while the
 * first is queued or retained; once the job is gone, the handlers' checks in Postgres make the new
 * one do nothing.
 */
export const QUEUE_NAMES = { events: 'events', deliveries: 'deliveries' } as const;

/**
 * How many finished jobs Redis keeps per queue. By count, not for a time: Postgres records every
 * delivery, so Redis only shows recent work, and stays bounded at any throughput. Failed jobs, the
 * evidence of what went wrong, are kept longer and never removed outright.
 */
export const RETENTION = { completed: 1_000, failed: 5_000 } as const;

const retention: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { count: RETENTION.completed },
  removeOnFail: { count: RETENTION.failed },
};

/**
 * Events published together travel in one dispatch job, up to this many: a job's fixed cost in
 * Redis and the worker (fetch, lock, completion) is paid per batch rather than per event.
 */
export const MAX_EVENTS_PER_JOB = 100;

export interface DispatchEventPayload {
  /** Events published together; the job fans them out together. */
  eventIds: string[];
  /** The trace context (W3C traceparent) of each traced event, by id, which its fan-out continues (docs/decisions.md#traces). */
  traceparents?: Record<string, string>;
}

/**
 * A delivery's attempt coming due (a retry's delay ended, a test send, a redelivery). The job only
 * wakes a worker's claim, which sends what is due in Postgres fairly; its id names the attempt, so
 * that it is added once.
 */
export interface DeliverWebhookPayload {
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
}

export const jobs = {
  dispatchEvent: {
    queue: QUEUE_NAMES.events,
    name: 'dispatch-event',
    schema: Joi.object<DispatchEventPayload, true>({
      eventIds: Joi.array().items(Joi.string()).min(1).max(MAX_EVENTS_PER_JOB).required(),
      traceparents: Joi.object().pattern(Joi.string(), Joi.string()),
    }),
    options: { ...retention, attempts: 10, backoff: { type: 'exponential', delay: 1_000 } } satisfies JobsOptions,
    jobId: (p: DispatchEventPayload) => p.eventIds[0]!,
  },
  deliverWebhook: {
    queue: QUEUE_NAMES.deliveries,
    name: 'deliver-webhook',
    schema: Joi.object<DeliverWebhookPayload, true>({ deliveryId: Joi.string().required(), attempt: Joi.number().integer().min(1).required() }),
    // Delivery retries follow the contract's schedule (docs/decisions.md#retries-and-disabling), each a delayed job scheduled by the handler.
    options: { ...retention, attempts: 5, backoff: { type: 'exponential', delay: 1_000 } } satisfies JobsOptions,
    jobId: (p: DeliverWebhookPayload) => `${p.deliveryId}-${p.attempt}`,
  },
} as const;

export function validatePayload<T>(schema: Joi.ObjectSchema<T>, payload: unknown): T {
  const { value, error } = schema.validate(payload, { allowUnknown: false });
  if (error) throw new Error(`Invalid job payload: ${error.message}`);
  return value;
}
