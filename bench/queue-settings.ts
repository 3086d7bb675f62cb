import type { ApiConfig, RedisTarget } from '@worktrack/config';

/** What a bench needs to reach the services' queues. */
export type QueueSettings = Pick<ApiConfig, 'redis' | 'redisPrefix' | 'queueShards'>;

/** The ports of the Redis servers holding the data, whose CPU a bench reads: the server, or a cluster's nodes; a Sentinel's master moves, so none. */
export function redisServerPorts(target: RedisTarget): number[] {
  if (target.topology === 'server') return [Number(new URL(target.url).port || 6379)];
  if (target.topology === 'cluster') return target.nodes.map((node) => node.port);
  return [];
}
