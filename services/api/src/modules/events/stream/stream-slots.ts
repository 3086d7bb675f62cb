import type { Logger } from '@worktrack/config';
import type { RedisClient } from '@worktrack/queue';

/** docs/decisions.md#history-actors-and-live-events: open streams per API key, across every replica. */
export const STREAMS_PER_KEY = 5;

/**
 * Counts each key's open streams in Redis, one sorted set per key (one slot, so any topology,
 * Cluster included), each stream a member scored by when its lease ends: a replica that dies
 * without closing its streams frees their slots when the leases run out. Renewed with each heartbeat.
 */
export class StreamSlots {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {}

  private key = (keyId: string) => `${this.prefix}:streams:{${keyId}}`;

  /** Takes a slot for the stream; false when the key has its 5 already. Redis down: granted (a limit is not worth refusing reads for). */
  async take(keyId: string, streamId: string): Promise<boolean> {
    const key = this.key(keyId);
    const now = Date.now();
    try {
      const replies = await this.redis
        .multi()
        .zremrangebyscore(key, 0, now)
        .zadd(key, now + this.leaseMs, streamId)
        .zcard(key)
        .pexpire(key, this.leaseMs)
        .exec();
      const open = Number(replies?.[2]?.[1] ?? 0);
      if (open <= STREAMS_PER_KEY) return true;
      await this.redis.zrem(key, streamId);
      return false;
    } catch (err) {
      this.logger.warn({ err }, 'stream slots unavailable; stream opened without counting it');
      return true;
    }
  }

  async renew(keyId: string, streamId: string): Promise<void> {
    const key = this.key(keyId);
    await this.redis
      .multi()
      .zadd(key, 'XX', Date.now() + this.leaseMs, streamId)
      .pexpire(key, this.leaseMs)
      .exec()
      .catch((err: unknown) => this.logger.warn({ err }, 'stream slot not renewed'));
  }

  async release(keyId: string, streamId: string): Promise<void> {
    await this.redis.zrem(this.key(keyId), streamId).catch((err: unknown) => this.logger.warn({ err }, 'stream slot not released; its lease frees it'));
  }
}
