import { createHash } from 'node:crypto';
import type { AppDeps } from '../deps';

const WINDOW_SECONDS = 15 * 60;
/** Sign-in mails one address may be sent per window: enough to retry, too few to flood an inbox. */
const PER_ADDRESS = 5;
/** Sign-in requests one client address may make per window, whatever addresses it names. */
const PER_CLIENT = 20;

/** Counts a request in a fixed window. One key per transaction: on a Redis Cluster two keys may sit in different slots, which one transaction cannot span. */
async function countInWindow(redis: AppDeps['redis'], key: string): Promise<number> {
  const replies = await redis.multi().incr(key).expire(key, WINDOW_SECONDS, 'NX').exec();
  return Number(replies?.[0]?.[1] ?? Number.POSITIVE_INFINITY);
}

/**
 * Counts a sign-in request against both limits (fixed windows in Redis, shared by every replica) and
 * says whether it is within them. Both are counted whether or not the address is a member's, so the
 * answer tells nothing about membership.
 */
export async function withinSignInLimits(deps: Pick<AppDeps, 'redis' | 'config'>, email: string, client: string): Promise<boolean> {
  const prefix = `${deps.config.redisPrefix}:dashboard-sign-in`;
  const [byAddress, byClient] = await Promise.all([
    countInWindow(deps.redis, `${prefix}:email:${createHash('sha256').update(email).digest('hex')}`),
    countInWindow(deps.redis, `${prefix}:client:${client}`),
  ]);
  return byAddress <= PER_ADDRESS && byClient <= PER_CLIENT;
}
