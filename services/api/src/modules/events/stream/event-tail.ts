import type { Logger } from '@worktrack/config';
import type { FeedEvent, FeedPosition, UnscopedData } from '@worktrack/db';

/** What the tail hands each tenant's events to: one open stream. */
export interface TailReader {
  organizationId: string;
  mode: string;
  receive(events: FeedEvent[]): void;
}

const TAIL_BATCH = 1000;

const tenantKey = (reader: { organizationId: string; mode: string }) => `${reader.organizationId} ${reader.mode}`;

/**
 * One API process's read of every tenant's new events, for all of its streams: it polls the outbox
 * in feed order from where it stands (ARCHITECTURE.md#live-events), so each replica sees the events
 * committed through any other straight from Postgres, whatever the Redis topology, and a stream costs
 * no query of its own once it is live. It runs while at least one stream listens.
 */
export class EventTail {
  private readonly readers = new Map<string, Set<TailReader>>();
  private position: FeedPosition | null = null;
  private started: Promise<void> | null = null;
  /** Bumped on every start and stop, so a poll of an earlier run schedules nothing. */
  private run = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly data: Pick<UnscopedData, 'tailEvents' | 'tailStart'>,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  /**
   * Adds a reader. Resolves, once the tail has started, with where the reader joined it: every event
   * beyond that position reaches the reader, every event before it has ended and is in the feed.
   */
  async add(reader: TailReader): Promise<FeedPosition> {
    const key = tenantKey(reader);
    const readers = this.readers.get(key) ?? new Set();
    readers.add(reader);
    this.readers.set(key, readers);
    // A running tail hands the reader everything beyond where it stands now; a starting one, beyond where it starts.
    const joined = this.position;
    this.started ??= this.start();
    await this.started;
    return joined ?? this.position!;
  }

  remove(reader: TailReader): void {
    const key = tenantKey(reader);
    const readers = this.readers.get(key);
    readers?.delete(reader);
    if (readers?.size === 0) this.readers.delete(key);
    if (this.readers.size === 0) this.stop();
  }

  stop(): void {
    this.run += 1;
    clearTimeout(this.timer);
    this.started = null;
    this.position = null;
  }

  private async start(): Promise<void> {
    const run = ++this.run;
    try {
      this.position = await this.data.tailStart();
    } catch (err) {
      if (run === this.run) this.started = null;
      throw err;
    }
    this.schedule(run);
  }

  private schedule(run: number): void {
    if (run === this.run) this.timer = setTimeout(() => void this.poll(run), this.intervalMs);
  }

  private async poll(run: number): Promise<void> {
    try {
      let events: FeedEvent[];
      do {
        events = await this.data.tailEvents(this.position!, TAIL_BATCH);
        if (run !== this.run) return;
        if (events.length > 0) {
          this.position = events.at(-1)!;
          this.dispatch(events);
        }
      } while (events.length === TAIL_BATCH);
    } catch (err) {
      this.logger.warn({ err }, 'event tail read failed; streams catch up on the next read');
    } finally {
      this.schedule(run);
    }
  }

  private dispatch(events: FeedEvent[]): void {
    const byTenant = new Map<string, FeedEvent[]>();
    for (const event of events) {
      const key = tenantKey(event);
      if (!this.readers.has(key)) continue;
      const batch = byTenant.get(key);
      if (batch) batch.push(event);
      else byTenant.set(key, [event]);
    }
    for (const [key, tenantEvents] of byTenant) for (const reader of this.readers.get(key) ?? []) reader.receive(tenantEvents);
  }
}
