import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'bullmq';
import type { RedisTarget } from '@worktrack/config';
import { createRedisConnection, JobScheduler, jobs, queueLayout, RETENTION } from '../src/index';

const redis: RedisTarget = { topology: 'server', url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
const producer = createRedisConnection(redis, 'worker', 'test-retention-producer');
const consumer = createRedisConnection(redis, 'worker', 'test-retention-consumer');
const scheduler = new JobScheduler(producer, queueLayout({ redis, redisPrefix: prefix, queueShards: 1 }), () => undefined);
const deliveries = scheduler.deliveries[0]!;

afterAll(async () => {
  await deliveries.obliterate({ force: true });
  await scheduler.close();
  producer.disconnect();
  consumer.disconnect();
});

describe('job retention', () => {
  it.each(Object.values(jobs).map((job) => [job.name, job.options] as const))(
    '%s keeps finished jobs by count only, never deleting failures outright',
    (_name, options) => {
      expect(options.removeOnComplete).toEqual({ count: RETENTION.completed });
      expect(options.removeOnFail).toEqual({ count: RETENTION.failed });
    },
  );

  it('keeps only the latest completed jobs, however recent the others', async () => {
    const total = RETENTION.completed + 50;
    let completed = 0;
    const worker = new Worker(jobs.deliverWebhook.queue, async () => undefined, { connection: consumer, prefix, concurrency: 100 });
    const allDone = new Promise<void>((resolve) => {
      worker.on('completed', () => {
        completed += 1;
        if (completed === total) resolve();
      });
    });
    try {
      await scheduler.scheduleDeliveries(Array.from({ length: total }, (_, i) => ({ deliveryId: `dlv_${i}`, attempt: 1 })));
      await Promise.race([allDone, once(worker, 'error').then(([err]) => Promise.reject(err))]);
    } finally {
      await worker.close();
    }
    expect(await deliveries.getCompletedCount()).toBe(RETENTION.completed);
    expect(await deliveries.getJob(`dlv_${total - 1}-1`)).toBeDefined();
  }, 15_000);
});
