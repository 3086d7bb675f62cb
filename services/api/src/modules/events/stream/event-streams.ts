import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from '@worktrack/config';
import type { FeedEvent, FeedFilter, FeedPosition, TenantData, UnscopedData } from '@worktrack/db';
import { retainedSince } from '@worktrack/events';
import type { RedisClient } from '@worktrack/queue';
import type { Tenant } from '../../../http/auth';
import { ApiError } from '../../../http/errors';
import { sealFeedCursor } from '../feed-cursor';
import { EventStream } from './event-stream';
import { EventTail } from './event-tail';
import { buildStreamMessage } from './stream-message';
import { STREAMS_PER_KEY, StreamSlots } from './stream-slots';

const BACKLOG_PAGE = 500;

export interface EventStreamsOptions {
  /** docs/decisions.md#history-actors-and-live-events: a comment line this often keeps proxies open. */
  heartbeatMs?: number;
  /** How often the tail reads new events. */
  tailIntervalMs?: number;
}

interface StreamRequest {
  tenant: Tenant;
  /** The hash of the key the stream was opened with, looked up again when the organization's keys change. */
  keyHash: string;
  filter: FeedFilter;
  after: FeedPosition | null;
  req: Request;
  res: Response;
}

interface OpenStream {
  stream: EventStream;
  organizationId: string;
  keyHash: string;
}

/** Every open stream of this API process: opened, fed by the one tail, closed on revocation and at shutdown. */
export class EventStreams {
  private readonly open = new Set<OpenStream>();
  private readonly tail: EventTail;
  private readonly slots: StreamSlots;
  private readonly heartbeatMs: number;
  /**
   * Each event's message, built (JSON and sealed cursor) once for all the tenant's streams rather than
   * once per stream: the tail hands every stream of a tenant the same event objects.
   */
  private readonly messages = new WeakMap<FeedEvent, string>();

  constructor(
    private readonly deps: {
      unscoped: UnscopedData;
      data: (tenant: Tenant) => TenantData;
      redis: RedisClient;
      redisPrefix: string;
      cursorSecret: string;
      logger: Logger;
    },
    { heartbeatMs = 15_000, tailIntervalMs = 100 }: EventStreamsOptions = {},
  ) {
    this.heartbeatMs = heartbeatMs;
    this.tail = new EventTail(deps.unscoped, deps.logger, tailIntervalMs);
    // A lease outlives a few missed heartbeats.
    this.slots = new StreamSlots(deps.redis, deps.redisPrefix, heartbeatMs * 4, deps.logger);
  }

  /** Opens a stream and sends it what follows `after` (or what happens from now on), then each event as it ends. */
  async serve({ tenant, keyHash, filter, after, req, res }: StreamRequest): Promise<void> {
    const streamId = randomUUID();
    if (!(await this.slots.take(tenant.keyId, streamId))) {
      throw new ApiError('rate_limited', `This API key has ${STREAMS_PER_KEY} open event streams already; close one before opening another`);
    }
    let heartbeat: NodeJS.Timeout | undefined;
    const entry: OpenStream = {
      organizationId: tenant.organizationId,
      keyHash,
      stream: new EventStream(
        tenant,
        filter,
        after,
        res,
        (event) => {
          let message = this.messages.get(event);
          if (message === undefined) {
            message = buildStreamMessage(sealFeedCursor(this.deps.cursorSecret, tenant, event), event, tenant);
            this.messages.set(event, message);
          }
          return message;
        },
        () => {
          clearInterval(heartbeat);
          this.open.delete(entry);
          this.tail.remove(entry.stream);
          void this.slots.release(tenant.keyId, streamId);
        },
      ),
    };
    let joined: FeedPosition;
    try {
      joined = await this.tail.add(entry.stream);
    } catch (err) {
      this.tail.remove(entry.stream);
      await this.slots.release(tenant.keyId, streamId);
      throw err;
    }
    this.open.add(entry);
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    // A stream opened without a cursor starts with one (an id and no data, which dispatches no event):
    // a client that loses the connection before the first event resumes from where it started.
    const start = after ? '' : `id: ${sealFeedCursor(this.deps.cursorSecret, tenant, { ...joined, createdAt: new Date() })}\n`;
    res.write(`retry: 1000\n${start}\n`);
    req.on('close', () => entry.stream.close());
    heartbeat = setInterval(() => {
      entry.stream.heartbeat();
      void this.slots.renew(tenant.keyId, streamId);
    }, this.heartbeatMs);

    try {
      if (after) await this.sendBacklog(entry.stream, tenant, filter);
      entry.stream.goLive();
    } catch (err) {
      this.deps.logger.warn({ err }, 'event stream backlog not read; closed for the client to resume');
      entry.stream.close();
    }
  }

  /** The organization's keys or members changed: its streams whose key no longer opens anything close. */
  async recheck(organizationId: string): Promise<void> {
    const streams = [...this.open].filter((entry) => entry.organizationId === organizationId);
    await Promise.all(
      streams.map(async (entry) => {
        if (!(await this.deps.unscoped.resolveKey(entry.keyHash))) entry.stream.close();
      }),
    );
  }

  /** At shutdown: every stream ends, and its client reconnects (to another replica) and resumes. */
  closeAll(): void {
    for (const entry of [...this.open]) entry.stream.close();
    this.tail.stop();
  }

  private async sendBacklog(stream: EventStream, tenant: Tenant, filter: FeedFilter): Promise<void> {
    const feed = this.deps.data(tenant).feed;
    for (;;) {
      const page = await feed.after(stream.cursor, { limit: BACKLOG_PAGE, since: retainedSince(), filter });
      stream.sendBacklog(page);
      if (page.length < BACKLOG_PAGE || stream.isClosed) return;
    }
  }
}
