import { createHash } from 'node:crypto';
import type { AppDeps } from '../deps';

/** Sign-in mails one client may have sent to one address an hour: enough to retry, too few to flood an inbox. */
const PER_CLIENT_AND_ADDRESS = { limit: 5, windowSeconds: 3600 };
/** Sign-in requests one client address may make in 15 minutes, whatever addresses they name. */
const PER_CLIENT = { limit: 20, windowSeconds: 15 * 60 };

/** Counts a request in a fixed window. One key per transaction: on a Redis Cluster two keys may sit in different slots, which one transaction cannot span. */
async function countInWindow(redis: AppDeps['redis'], key: string, windowSeconds: number): Promise<number> {
  const replies = await redis.multi().incr(key).expire(key, windowSeconds, 'NX').exec();
  return Number(replies?.[0]?.[1] ?? Number.POSITIVE_INFINITY);
}

/**
 * Counts a sign-in request against both limits (fixed windows in Redis, shared by every replica) and
 * says whether it is within them (docs/decisions.md#signing-in-safely). Every count is a client's own:
 * no count of an address alone, which a stranger naming a member's address could run up to keep the
 * member from signing in. Both are counted whether or not the address is a member's, so the answer
 * tells nothing about membership.
 */
export async function withinSignInLimits(deps: Pick<AppDeps, 'redis' | 'config'>, email: string, client: string): Promise<boolean> {
  const prefix = `${deps.config.redisPrefix}:dashboard-sign-in`;
  const address = createHash('sha256').update(email).digest('hex');
  const [byAddress, byClient] = await Promise.all([
    countInWindow(deps.redis, `${prefix}:client-email:${client}:${address}`, PER_CLIENT_AND_ADDRESS.windowSeconds),
    countInWindow(deps.redis, `${prefix}:client:${client}`, PER_CLIENT.windowSeconds),
  ]);
  return byAddress <= PER_CLIENT_AND_ADDRESS.limit && byClient <= PER_CLIENT.limit;
}
