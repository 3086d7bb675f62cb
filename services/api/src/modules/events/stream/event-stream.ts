import type { Response } from 'express';
import type { FeedEvent, FeedFilter, FeedPosition } from '@worktrack/db';
import type { TailReader } from './event-tail';

/** Beyond this many bytes waiting for a reader, it is too slow: disconnected rather than buffered (it resumes with Last-Event-ID). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

const isAfter = (event: FeedPosition, position: FeedPosition | null) => {
  if (!position) return true;
  const [a, b] = [BigInt(event.txid), BigInt(position.txid)];
  return a > b || (a === b && event.id > position.id);
};

export interface StreamTarget {
  organizationId: string;
  mode: string;
}

/**
 * One open stream: what it was asked for, where it stands, and its connection. It first reads the
 * feed from its cursor (the backlog) while the tail's events wait in `held`, then sends those beyond
 * what it read and, from then on, each event as the tail reads it: both are in feed order, so
 * comparing positions leaves neither a gap nor a duplicate.
 */
export class EventStream implements TailReader {
  readonly organizationId: string;
  readonly mode: string;
  private held: FeedEvent[] | null = [];
  private closed = false;

  constructor(
    target: StreamTarget,
    private readonly filter: FeedFilter,
    private position: FeedPosition | null,
    private readonly res: Response,
    /** The event's SSE message (built once per event for all the tenant's streams). */
    private readonly messageOf: (event: FeedEvent) => string,
    private readonly onClose: () => void,
  ) {
    this.organizationId = target.organizationId;
    this.mode = target.mode;
  }

  /** From the tail: held while the backlog is read, sent once live. */
  receive(events: FeedEvent[]): void {
    const wanted = events.filter((event) => this.wants(event));
    if (this.held) this.held.push(...wanted);
    else this.send(wanted);
  }

  /** The backlog, read from the feed in pages. */
  sendBacklog(events: FeedEvent[]): void {
    this.send(events);
  }

  /** The backlog is read: the tail's events beyond it go out, and the stream is live. */
  goLive(): void {
    const held = this.held ?? [];
    this.held = null;
    this.send(held);
  }

  get cursor(): FeedPosition | null {
    return this.position;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** A comment line, so that proxies keep the connection open. */
  heartbeat(): void {
    this.write(': heartbeat\n\n');
  }

  /** Ends the stream; the client reconnects with its last id and resumes. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.res.end();
    this.onClose();
  }

  private wants(event: FeedEvent): boolean {
    return (
      (!this.filter.types || this.filter.types.includes(event.type)) && (!this.filter.projectIds || this.filter.projectIds.includes(event.projectId ?? ''))
    );
  }

  private send(events: FeedEvent[]): void {
    for (const event of events) {
      if (this.closed) return;
      if (!isAfter(event, this.position)) continue;
      this.position = event;
      this.write(this.messageOf(event));
    }
  }

  private write(text: string): void {
    if (this.closed) return;
    this.res.write(text);
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      this.closed = true;
      this.res.destroy();
      this.onClose();
    }
  }
}
