import type { RequestHandler } from 'express';
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
 * Counts a request and, on the day's first, sets the counter to expire an hour after the day ends:
 * one command, atomic, so every replica's count is exact.
 */
const INCREMENT = `
  local hits = redis.call('INCR', KEYS[1])
  if hits == 1 then redis.call('EXPIREAT', KEYS[1], ARGV[1]) end
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

  async increment(key: string): Promise<IncrementResponse> {
    const resetTime = nextUtcMidnight();
    const expireAt = Math.floor(resetTime.getTime() / 1000) + 3600;
    const totalHits = await this.redis.eval(INCREMENT, 1, this.keyFor(key, resetTime), expireAt);
    return { totalHits: Number(totalHits), resetTime };
  }

  /** Today's count so far, without counting (the dashboard's overview). */
  async get(key: string): Promise<IncrementResponse> {
    const resetTime = nextUtcMidnight();
    return { totalHits: Number((await this.redis.get(this.keyFor(key, resetTime))) ?? 0), resetTime };
  }

  async decrement(key: string): Promise<void> {
    await this.redis.decr(this.keyFor(key, nextUtcMidnight()));
  }

  async resetKey(key: string): Promise<void> {
    await this.redis.del(this.keyFor(key, nextUtcMidnight()));
  }
}

/** The one place the quota counters live: the limiter counts into it, the dashboard reads it. */
export const quotaStore = (redis: RedisClient, prefix: string) => new UtcDayRedisStore(redis, `${prefix}:quota`);

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
