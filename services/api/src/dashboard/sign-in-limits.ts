import { createHash } from 'node:crypto';
import type { AppDeps } from '../deps';

const WINDOW_SECONDS = 15 * 60;
/** Sign-in mails one address may be sent per window: enough to retry, too few to flood an inbox. */
const PER_ADDRESS = 5;
/** Sign-in requests one client address may make per window, whatever addresses it names. */
const PER_CLIENT = 20;

/**
 * Counts a sign-in request against both limits (fixed windows in Redis, shared by every replica) and
 * says whether it is within them. Both are counted whether or not the address is a member's, so the
 * answer tells nothing about membership.
 */
export async function withinSignInLimits(deps: Pick<AppDeps, 'redis' | 'config'>, email: string, client: string): Promise<boolean> {
  const prefix = `${deps.config.redisPrefix}:dashboard-sign-in`;
  const byAddress = `${prefix}:email:${createHash('sha256').update(email).digest('hex')}`;
  const byClient = `${prefix}:client:${client}`;
  const replies = await deps.redis.multi().incr(byAddress).expire(byAddress, WINDOW_SECONDS, 'NX').incr(byClient).expire(byClient, WINDOW_SECONDS, 'NX').exec();
  const count = (index: number) => Number(replies?.[index]?.[1] ?? Number.POSITIVE_INFINITY);
  return count(0) <= PER_ADDRESS && count(2) <= PER_CLIENT;
}
