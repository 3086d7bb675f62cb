import IORedis, { Cluster, type Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '@worktrack/config';

/** A connection to whichever topology the settings name; both kinds take the same commands. */
export type RedisClient = Redis | Cluster;

export type ConnectionRole = 'producer' | 'worker' | 'subscriber';

/**
 * Separate connections per role. Producers (the API) fail fast so a Redis outage never hangs a
 * request (the outbox catches up later, requests that need Redis answer 503); workers wait for Redis
 * indefinitely, and so do pub/sub subscribers, which subscribe again after a reconnect.
 */
function roleOptions(role: ConnectionRole): RedisOptions {
  return role === 'producer'
    ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 }
    : { maxRetriesPerRequest: null, enableReadyCheck: true };
}

/**
 * A replica still answering as its old master's, or a master demoted by a failover, refuses writes
 * with READONLY: reconnect (Sentinel then names the new master) and send the command again.
 */
const reconnectOnReadOnly = (err: Error) => (err.message.startsWith('READONLY') ? 2 : false);

/**
 * The one connection factory of every role in both services: one server (REDIS_URL), the master a
 * Sentinel names (followed through failovers), or a Redis Cluster (REDIS_CLUSTER_NODES).
 */
export function createRedisConnection(target: RedisTarget, role: ConnectionRole, name?: string): RedisClient {
  const options: RedisOptions = {
    ...roleOptions(role),
    // A socket that does not close after disconnect() (one still connecting to an unreachable
    // Redis) is destroyed after this, rather than keeping a closing process alive for 2 s.
    disconnectTimeout: 200,
    connectionName: name,
    reconnectOnError: reconnectOnReadOnly,
    ...(target.password === undefined ? {} : { password: target.password }),
  };
  const connection =
    target.topology === 'cluster'
      ? new Cluster(target.nodes, {
          redisOptions: options,
          enableOfflineQueue: options.enableOfflineQueue ?? true,
          enableReadyCheck: true,
        })
      : target.topology === 'sentinel'
        ? new IORedis({ ...options, sentinels: target.sentinels, name: target.masterName, failoverDetector: true })
        : new IORedis(target.url, options);
  connection.on('error', () => {
    // Reported by the callers whose commands fail; ioredis reconnects on its own.
  });
  return connection;
}
