import IORedis, { type Redis } from 'ioredis';

/**
 * Separate connections per role. Producers (the API) fail fast so a Redis outage never
 * hangs a request (the outbox catches up later); workers wait for Redis indefinitely, and so do
 * pub/sub subscribers, which subscribe again after a reconnect.
 */
export function createRedisConnection(url: string, role: 'producer' | 'worker' | 'subscriber', name?: string): Redis {
  const options =
    role === 'producer'
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, disconnectTimeout: 200 }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
  const connection = new IORedis(url, { ...options, connectionName: name, lazyConnect: false });
  connection.on('error', () => {
    // Reported by the callers whose commands fail; ioredis reconnects on its own.
  });
  return connection;
}
