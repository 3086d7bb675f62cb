import { Queue, type Job, type JobsOptions } from 'bullmq';
import { jobs, MAX_EVENTS_PER_JOB, validatePayload, type DispatchEventPayload } from './catalog';
import type { RedisClient } from './connection';
import { shardOf, type QueueLayout } from './queue-layout';

/** A committed event, with the organization whose events queue shard it goes to and the trace context it was written in. */
export interface PublishedEvent {
  id: string;
  organizationId: string;
  traceparent?: string | null;
}

/** A dispatch job's payload: the events' ids, and the trace contexts of those that have one. */
function dispatchPayload(events: PublishedEvent[]): DispatchEventPayload {
  const traced = events.filter((event) => event.traceparent);
  const payload: DispatchEventPayload = { eventIds: events.map((event) => event.id) };
  if (traced.length > 0) payload.traceparents = Object.fromEntries(traced.map((event) => [event.id, event.traceparent!]));
  return payload;
}

/**
 * Adds the catalog's jobs under their deterministic ids. Adding an id that is waiting, delayed or
 * active is a no-op, so republishing never doubles work; `ensure*` also replaces a finished job of
 * the same id, which is how the sweep and a re-enabled subscription revive a stuck item.
 * Events go to their organization's shard of the events queue, delivery jobs (which only wake a
 * claim) to their delivery's shard; a shard is the same in every process, so a republish meets the
 * job it repeats.
 */
export class JobScheduler {
  readonly events: Queue[];
  readonly deliveries: Queue[];

  constructor(connection: RedisClient, layout: QueueLayout, onError: (err: Error) => void) {
    const open = (name: string) => new Queue(name, { connection, prefix: layout.prefix }).on('error', onError);
    this.events = layout.events.map(open);
    this.deliveries = layout.deliveries.map(open);
  }

  /** Every queue of every kind (metrics, the queue dashboard). */
  get queues(): Queue[] {
    return [...this.events, ...this.deliveries];
  }

  eventsQueueOf(organizationId: string): Queue {
    return this.events[shardOf(organizationId, this.events.length)]!;
  }

  deliveriesQueueOf(deliveryId: string): Queue {
    return this.deliveries[shardOf(deliveryId, this.deliveries.length)]!;
  }

  async publishEvents(events: PublishedEvent[]): Promise<void> {
    const byShard = groupBy(events, (event) => this.eventsQueueOf(event.organizationId));
    await Promise.all(
      [...byShard].map(([queue, shardEvents]) => {
        const batches = [];
        for (let i = 0; i < shardEvents.length; i += MAX_EVENTS_PER_JOB)
          batches.push(this.dispatchJob(dispatchPayload(shardEvents.slice(i, i + MAX_EVENTS_PER_JOB))));
        return queue.addBulk(batches);
      }),
    );
  }

  async scheduleDeliveries(items: { deliveryId: string; attempt: number; delayMs?: number }[]): Promise<void> {
    const byShard = groupBy(items, (item) => this.deliveriesQueueOf(item.deliveryId));
    await Promise.all([...byShard].map(([queue, shardItems]) => queue.addBulk(shardItems.map((item) => this.deliveryJob(item)))));
  }

  async ensureEventDispatched(event: PublishedEvent): Promise<void> {
    const queue = this.eventsQueueOf(event.organizationId);
    const job = this.dispatchJob(dispatchPayload([event]));
    await replaceFinished(queue, job.opts.jobId);
    await queue.add(job.name, job.data, job.opts);
  }

  /**
   * Publishes again the overdue events that no job of their shard may still hold (Redis lost it, or
   * refused the API): a job added before an event's `createdAt + withinMs` and still waiting, delayed
   * or running may be its own, so behind a backlog the event waits for it rather than be published
   * twice. An event whose job was lost is republished once its shard's oldest job is younger than
   * that. Resolves with how many were published.
   */
  async republishLostEvents(events: (PublishedEvent & { createdAt: Date })[], withinMs: number): Promise<number> {
    let republished = 0;
    for (const [queue, shardEvents] of groupBy(events, (event) => this.eventsQueueOf(event.organizationId))) {
      const oldest = await oldestPendingJobAt(queue);
      for (const event of shardEvents) {
        if (oldest !== undefined && oldest <= event.createdAt.getTime() + withinMs) continue;
        await this.ensureEventDispatched(event);
        republished++;
      }
    }
    return republished;
  }

  /** `now` also brings forward a job that is waiting for its retry delay (redelivery, re-enable). */
  async ensureDeliveryScheduled(deliveryId: string, attempt: number, { now = false } = {}): Promise<void> {
    const queue = this.deliveriesQueueOf(deliveryId);
    const job = this.deliveryJob({ deliveryId, attempt });
    const existing = await replaceFinished(queue, job.opts.jobId);
    if (now && existing?.state === 'delayed') await existing.job.promote();
    else await queue.add(job.name, job.data, job.opts);
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.close()));
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

function groupBy<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** When the oldest job still to run or running in the queue was added; undefined when there is none. */
async function oldestPendingJobAt(queue: Queue): Promise<number | undefined> {
  const pending = await queue.getJobs(['active', 'waiting', 'prioritized', 'delayed'], 0, 0, true);
  return pending.length === 0 ? undefined : Math.min(...pending.map((job) => job.timestamp));
}

/** Removes a completed or failed job of that id so it can be added again; returns what it found. */
async function replaceFinished(queue: Queue, jobId: string): Promise<{ job: Job; state: string } | undefined> {
  const job = await queue.getJob(jobId);
  if (!job) return undefined;
  const state = await job.getState();
  if (state === 'completed' || state === 'failed') await job.remove();
  return { job, state };
}
