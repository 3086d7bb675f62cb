import type { RequestHandler, Response } from 'express';
import { rateLimit, type IncrementResponse, type Store } from 'express-rate-limit';
import type { RedisClient } from '@worktrack/queue';
import type { Logger } from '@worktrack/config';
import type { Plan } from '@worktrack/db';
import { ApiError } from './errors';
import { requireTenant, type Tenant } from './auth';

/** docs/decisions.md#limits: requests per UTC day. Enterprise organizations carry their own number. */
const PLAN_DAILY_QUOTA: Record<Plan, number> = { free: 1_000, pro: 100_000, enterprise: 1_000_000 };

export function dailyQuota(tenant: Pick<Tenant, 'plan' | 'dailyQuota'>): number {
  return tenant.dailyQuota ?? PLAN_DAILY_QUOTA[tenant.plan];
}

function nextUtcMidnight(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/**
 * Counts requests and, on the day's first, sets the counter to expire an hour after the day ends:
 * one command, atomic, so every replica's count is exact.
 */
const INCREMENT = `
  local hits = redis.call('INCRBY', KEYS[1], ARGV[2])
  if hits == tonumber(ARGV[2]) then redis.call('EXPIREAT', KEYS[1], ARGV[1]) end
  return hits`;

/**
 * An express-rate-limit store whose window is the UTC calendar day (docs/decisions.md#limits), kept in
 * Redis so every API replica counts against the same number.
 */
class UtcDayRedisStore implements Store {
  readonly localKeys = false;

  constructor(
    private readonly redis: RedisClient,
    readonly prefix: string,
  ) {}

  private keyFor(key: string, resetTime: Date): string {
    return `${this.prefix}:${key}:${resetTime.toISOString().slice(0, 10)}`;
  }

  async increment(key: string, count = 1): Promise<{ totalHits: number; resetTime: Date }> {
    const resetTime = nextUtcMidnight();
    const expireAt = Math.floor(resetTime.getTime() / 1000) + 3600;
    const totalHits = await this.redis.eval(INCREMENT, 1, this.keyFor(key, resetTime), expireAt, count);
    return { totalHits: Number(totalHits), resetTime };
  }

  /** Today's count so far, without counting (the dashboard's overview). */
  async get(key: string): Promise<IncrementResponse> {
    const resetTime = nextUtcMidnight();
    return { totalHits: Number((await this.redis.get(this.keyFor(key, resetTime))) ?? 0), resetTime };
  }

  async decrement(key: string, count = 1): Promise<void> {
    await this.redis.decrby(this.keyFor(key, nextUtcMidnight()), count);
  }

  async resetKey(key: string): Promise<void> {
    await this.redis.del(this.keyFor(key, nextUtcMidnight()));
  }
}

/** The one place the quota counters live: the limiter counts into it, the dashboard reads it. */
export const quotaStore = (redis: RedisClient, prefix: string): UtcDayRedisStore => new UtcDayRedisStore(redis, `${prefix}:quota`);

/**
 * docs/decisions.md#bulk-task-operations: a request that counts as several (a bulk of `count`
 * operations). The limiter counted it as one before its body was read; the rest are counted here,
 * once it is valid, and handed back if they do not fit: 429 with nothing applied.
 * `X-RateLimit-Remaining` then says what remains after it.
 */
export class QuotaCharge {
  constructor(
    private readonly store: UtcDayRedisStore,
    private readonly logger: Logger,
  ) {}

  async charge(tenant: Tenant, res: Response, count: number): Promise<void> {
    const extra = count - 1;
    if (extra <= 0) return;
    const limit = dailyQuota(tenant);
    let counted: { totalHits: number; resetTime: Date };
    try {
      counted = await this.store.increment(tenant.organizationId, extra);
    } catch (err) {
      // As the limiter does, a Redis outage lets requests pass uncounted.
      this.logger.warn({ err }, 'quota store unavailable; request not counted');
      return;
    }
    if (counted.totalHits > limit) {
      await this.store.decrement(tenant.organizationId, extra).catch((err: unknown) => this.logger.warn({ err }, 'quota not handed back'));
      res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - (counted.totalHits - extra))));
      res.setHeader('Retry-After', String(Math.ceil((counted.resetTime.getTime() - Date.now()) / 1000)));
      throw new ApiError('rate_limited', `This request counts as ${count} requests, more than remain of the daily quota; see X-RateLimit-Reset`);
    }
    res.setHeader('X-RateLimit-Remaining', String(limit - counted.totalHits));
  }
}

/** Counts every authenticated request per organization; live and test keys share the quota. */
export function dailyQuotaLimiter(redis: RedisClient, prefix: string, logger: Logger): RequestHandler {
  return rateLimit({
    windowMs: 24 * 3600 * 1000,
    limit: (req) => dailyQuota(requireTenant(req)),
    keyGenerator: (req) => requireTenant(req).organizationId,
    store: quotaStore(redis, prefix),
    standardHeaders: false,
    legacyHeaders: true,
    // A Redis outage must not take the API down with it: requests pass uncounted meanwhile.
    passOnStoreError: true,
    logger: {
      warn: (msg: unknown) => logger.warn({ msg }, 'rate limiter'),
      error: (err: unknown) => logger.warn({ err }, 'quota store unavailable; request not counted'),
    },
    handler: (_req, _res, next) => next(new ApiError('rate_limited', 'Daily request quota exceeded; see X-RateLimit-Reset')),
    validate: { keyGeneratorIpFallback: false },
  });
}
