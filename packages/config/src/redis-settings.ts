import Joi from 'joi';
import { maybeUnset, type EnvOf } from './env-schema';

/** A Redis server address, as the topology settings list them. */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Which Redis the services use: one server (REDIS_URL), a Sentinel-managed master
 * (REDIS_SENTINELS + REDIS_SENTINEL_MASTER) or a Redis Cluster (REDIS_CLUSTER_NODES). REDIS_PASSWORD
 * is the data nodes' password under any of them (Sentinels themselves are asked without one).
 */
export type RedisTarget =
  | { topology: 'server'; url: string; password?: string }
  | { topology: 'sentinel'; sentinels: RedisNode[]; masterName: string; password?: string }
  | { topology: 'cluster'; nodes: RedisNode[]; password?: string };

const nodeList = maybeUnset(Joi.string())
  .empty('')
  .pattern(/^\s*[\w.-]+:\d+\s*(,\s*[\w.-]+:\d+\s*)*$/)
  .messages({ 'string.pattern.base': '{{#label}} must be a comma-separated list of host:port' });

/** The Redis settings of both services, grouped. */
export const redisEnv = {
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .default('redis://127.0.0.1:6379'),
  REDIS_SENTINELS: nodeList,
  REDIS_SENTINEL_MASTER: maybeUnset(Joi.string()).empty('').when('REDIS_SENTINELS', { is: Joi.exist(), then: Joi.required() }),
  REDIS_CLUSTER_NODES: nodeList
    .when('REDIS_SENTINELS', { is: Joi.exist(), then: Joi.forbidden() })
    .messages({ 'any.unknown': 'set REDIS_SENTINELS or REDIS_CLUSTER_NODES, not both' }),
  REDIS_PASSWORD: maybeUnset(Joi.string()).empty(''),
  REDIS_PREFIX: Joi.string()
    .pattern(/^[\w.-]+$/)
    .default('worktrack'),
  QUEUE_SHARDS: Joi.number().integer().min(1).max(64).default(1),
};

function nodes(list: string): RedisNode[] {
  return list.split(',').map((entry) => {
    const [host, port] = entry.trim().split(':');
    return { host: host!, port: Number(port) };
  });
}

export function redisSettings(e: EnvOf<typeof redisEnv>) {
  const password = e.REDIS_PASSWORD;
  // The schema requires REDIS_SENTINEL_MASTER with REDIS_SENTINELS.
  const redis: RedisTarget = e.REDIS_SENTINELS
    ? { topology: 'sentinel', sentinels: nodes(e.REDIS_SENTINELS), masterName: e.REDIS_SENTINEL_MASTER!, password }
    : e.REDIS_CLUSTER_NODES
      ? { topology: 'cluster', nodes: nodes(e.REDIS_CLUSTER_NODES), password }
      : { topology: 'server', url: e.REDIS_URL, password };
  return {
    redis,
    /** Queues per kind (events, deliveries); events are spread over them by organization. */
    queueShards: e.QUEUE_SHARDS,
    /** Prefix of every key and channel, so that deployments can share a Redis. */
    redisPrefix: e.REDIS_PREFIX,
  };
}
