import { currentTraceparent } from '@worktrack/telemetry';
import type { PublishedEvent } from './job-scheduler';

export interface EventPublisherOptions {
  /** How long ids are gathered after the first before they are added together. */
  delayMs: number;
  /** A batch this large is added at once. */
  maxBatch: number;
  /** A batch that could not be added; the outbox sweep publishes its events later. */
  onError: (err: unknown, events: PublishedEvent[]) => void;
}

/**
 * Publishes committed events' ids a batch at a time: ids handed over within `delayMs` of the first
 * go to Redis in one pipelined bulk add, so a busy API pays one round trip for many requests.
 * Best effort, as publishing always is here: an id lost with a failed batch or a crash stays
 * undispatched in the outbox until the worker's sweep publishes it.
 */
export class EventPublisher {
  private pending: PublishedEvent[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly scheduler: { publishEvents(events: PublishedEvent[]): Promise<void> },
    private readonly options: EventPublisherOptions,
  ) {}

  /** An organization's committed events (their organization picks their queue shard), with the trace context they were written in. */
  publish(organizationId: string, eventIds: string[]): void {
    if (eventIds.length === 0) return;
    const traceparent = currentTraceparent();
    for (const id of eventIds) this.pending.push({ id, organizationId, ...(traceparent && { traceparent }) });
    if (this.pending.length >= this.options.maxBatch) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.delayMs);
  }

  /**
   * Adds what is pending now, without waiting for Redis: while it is unreachable a bulk add waits for
   * the connection, and shutting down must not. Whatever does not make it is left to the sweep.
   */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.scheduler.publishEvents(batch).catch((err: unknown) => this.options.onError(err, batch));
  }
}
