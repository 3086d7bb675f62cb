import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobs, validatePayload } from './catalog';

/**
 * Publishes committed outbox events to the events queue. Best effort by design: a failure
 * only delays the event until the worker's outbox sweep republishes it.
 */
export class EventPublisher {
  private readonly queue: Queue;

  constructor(connection: Redis, prefix: string) {
    this.queue = new Queue(jobs.dispatchEvent.queue, { connection, prefix });
  }

  async publish(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.queue.addBulk(
      eventIds.map((eventId) => {
        const data = validatePayload(jobs.dispatchEvent.schema, { eventId });
        return { name: jobs.dispatchEvent.name, data, opts: { ...jobs.dispatchEvent.options, jobId: jobs.dispatchEvent.jobId(data) } };
      }),
    );
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
