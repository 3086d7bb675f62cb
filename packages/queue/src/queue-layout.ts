import type { RedisTarget } from '@worktrack/config';
import { QUEUE_NAMES } from './catalog';

/** Where the queues live: BullMQ's prefix and, per kind, the names of its shards. */
export interface QueueLayout {
  prefix: string;
  events: string[];
  deliveries: string[];
}

/**
 * One server with one queue per kind keeps the names it always had (`events`, `deliveries`). Otherwise
 * each shard is named with a hash tag of its own, `{events-0}`, `{events-1}`, ...: BullMQ's scripts
 * touch many keys of one queue at once, which a Redis Cluster allows only within one slot, and the
 * tag puts all of a shard's keys in the slot of its name, different shards in different slots.
 */
export function queueLayout(settings: { redis: RedisTarget; redisPrefix: string; queueShards: number }): QueueLayout {
  const tagged = settings.redis.topology === 'cluster' || settings.queueShards > 1;
  const names = (kind: string) => (tagged ? Array.from({ length: settings.queueShards }, (_, i) => `{${kind}-${i}}`) : [kind]);
  return { prefix: settings.redisPrefix, events: names(QUEUE_NAMES.events), deliveries: names(QUEUE_NAMES.deliveries) };
}

/** A stable shard for a key (FNV-1a), the same in every process: an organization's events always go to one queue. */
export function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}
