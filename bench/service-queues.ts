import { Queue } from 'bullmq';
import type { QueueLayout, RedisClient } from '../packages/queue/src';

/** Removes the services' queues of a bench run (every shard of events and deliveries), jobs and all: a run leaves nothing in Redis. */
export async function obliterateServiceQueues(connection: RedisClient, layout: QueueLayout): Promise<void> {
  await Promise.all(
    [...layout.events, ...layout.deliveries].map(async (name) => {
      const queue = new Queue(name, { connection, prefix: layout.prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }),
  );
}
