import type { RedisTarget } from './redis-settings';
import { isUnreachable } from './unreachable';

/** How often, at most, the same notice is repeated while its cause lasts. */
const NOTICE_INTERVAL_MS = 5_000;

const lastWritten = new Map<string, number>();

/**
 * Writes one plain line on stderr, unless the same line went out less than `intervalMs` ago: an
 * outage shows as one sentence every few seconds, not as every failed command's error.
 */
export function noticeOnce(line: string, intervalMs = NOTICE_INTERVAL_MS): void {
  const now = Date.now();
  if (now - (lastWritten.get(line) ?? -Infinity) < intervalMs) return;
  lastWritten.set(line, now);
  process.stderr.write(`${line}\n`);
}

/** The sentence an operator reads while a running service cannot reach Postgres. */
const DATABASE_UNREACHABLE = 'Cannot reach the database. Check DATABASE_URL and that PostgreSQL is running; retrying.';

/** The handler of a periodic query's errors: an unreachable Postgres becomes the plain notice, anything else goes to `log`. */
export function databaseErrorReporter(log: (err: unknown) => void): (err: unknown) => void {
  return (err) => (isUnreachable(err) ? noticeOnce(DATABASE_UNREACHABLE) : log(err));
}

/** The sentence an operator reads while Redis cannot be reached: where the services look, and which setting says so. */
function redisUnreachableLine(target: RedisTarget): string {
  const list = (nodes: { host: string; port: number }[]) => nodes.map((node) => `${node.host}:${node.port}`).join(', ');
  switch (target.topology) {
    case 'sentinel':
      return `Cannot reach Redis through the Sentinels at ${list(target.sentinels)} (master "${target.masterName}"). Start them, or fix REDIS_SENTINELS and REDIS_SENTINEL_MASTER; retrying.`;
    case 'cluster':
      return `Cannot reach the Redis Cluster at ${list(target.nodes)}. Start it, or fix REDIS_CLUSTER_NODES; retrying.`;
    default:
      return `Cannot reach Redis at ${redisAddress(target.url)}. Start Redis, or set REDIS_URL to where it runs; retrying.`;
  }
}

/**
 * The handler of a queue's or a Redis client's errors: an unreachable Redis becomes the plain
 * notice, anything else goes to `log`.
 */
export function redisErrorReporter(target: RedisTarget, log: (err: Error) => void): (err: Error) => void {
  const line = redisUnreachableLine(target);
  return (err) => (isUnreachable(err) ? noticeOnce(line) : log(err));
}

/** Host and port of a Redis URL, never its password. */
function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 6379}`;
  } catch {
    return 'REDIS_URL';
  }
}
