import { Queue, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobs, MAX_EVENTS_PER_JOB, validatePayload, type DispatchEventPayload } from './catalog';

/**
 * Adds the catalog's jobs under their deterministic ids. Adding an id that is waiting, delayed or
 * active is a no-op, so republishing never doubles work; `ensure*` also replaces a finished job of
 * the same id, which is how the sweep and a re-enabled subscription revive a stuck item.
 */
export class JobScheduler {
  readonly events: Queue;
  readonly deliveries: Queue;

  constructor(connection: Redis, prefix: string, onError: (err: Error) => void) {
    this.events = new Queue(jobs.dispatchEvent.queue, { connection, prefix });
    this.deliveries = new Queue(jobs.deliverWebhook.queue, { connection, prefix });
    this.events.on('error', onError);
    this.deliveries.on('error', onError);
  }

  async publishEvents(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    const batches = [];
    for (let i = 0; i < eventIds.length; i += MAX_EVENTS_PER_JOB) batches.push(this.dispatchJob({ eventIds: eventIds.slice(i, i + MAX_EVENTS_PER_JOB) }));
    await this.events.addBulk(batches);
  }

  async scheduleDeliveries(items: { deliveryId: string; attempt: number; delayMs?: number }[]): Promise<void> {
    if (items.length === 0) return;
    await this.deliveries.addBulk(items.map((item) => this.deliveryJob(item)));
  }

  async ensureEventDispatched(eventId: string): Promise<void> {
    const job = this.dispatchJob({ eventIds: [eventId] });
    await replaceFinished(this.events, job.opts.jobId);
    await this.events.add(job.name, job.data, job.opts);
  }

  /** `now` also brings forward a job that is waiting for its retry delay (redelivery, re-enable). */
  async ensureDeliveryScheduled(deliveryId: string, attempt: number, { now = false } = {}): Promise<void> {
    const job = this.deliveryJob({ deliveryId, attempt });
    const existing = await replaceFinished(this.deliveries, job.opts.jobId);
    if (now && existing?.state === 'delayed') await existing.job.promote();
    else await this.deliveries.add(job.name, job.data, job.opts);
  }

  async close(): Promise<void> {
    await Promise.all([this.events.close(), this.deliveries.close()]);
  }

  private dispatchJob(payload: DispatchEventPayload) {
    const data = validatePayload(jobs.dispatchEvent.schema, payload);
    return { name: jobs.dispatchEvent.name, data, opts: { ...jobs.dispatchEvent.options, jobId: jobs.dispatchEvent.jobId(data) } };
  }

  private deliveryJob({ deliveryId, attempt, delayMs = 0 }: { deliveryId: string; attempt: number; delayMs?: number }) {
    const data = validatePayload(jobs.deliverWebhook.schema, { deliveryId, attempt });
    const opts: JobsOptions & { jobId: string } = { ...jobs.deliverWebhook.options, jobId: jobs.deliverWebhook.jobId(data), delay: delayMs };
    return { name: jobs.deliverWebhook.name, data, opts };
  }
}

/** Removes a completed or failed job of that id so it can be added again; returns what it found. */
async function replaceFinished(queue: Queue, jobId: string): Promise<{ job: Job; state: string } | undefined> {
  const job = await queue.getJob(jobId);
  if (!job) return undefined;
  const state = await job.getState();
  if (state === 'completed' || state === 'failed') await job.remove();
  return { job, state };
}
