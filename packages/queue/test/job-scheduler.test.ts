import { randomUUID } from 'node:crypto';
import type { RedisTarget } from '@worktrack/config';
import { createRedisConnection, JobScheduler, MAX_EVENTS_PER_JOB, queueLayout, type PublishedEvent } from '../src/index';

const redis: RedisTarget = { topology: 'server', url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
const producer = createRedisConnection(redis, 'worker', 'test-scheduler-producer');
const scheduler = new JobScheduler(producer, queueLayout({ redis, redisPrefix: prefix, queueShards: 1 }), () => undefined);
const sharded = new JobScheduler(producer, queueLayout({ redis, redisPrefix: `${prefix}-sharded`, queueShards: 3 }), () => undefined);

afterAll(async () => {
  await Promise.all([...scheduler.queues, ...sharded.queues].map((queue) => queue.obliterate({ force: true })));
  await Promise.all([scheduler.close(), sharded.close()]);
  producer.disconnect();
});

async function queued(): Promise<{ id: string | undefined; eventIds: string[] }[]> {
  const waiting = await scheduler.events[0]!.getWaiting();
  return waiting
    .map((job) => ({ id: job.id, eventIds: job.data.eventIds }))
    .sort((a, b) => a.eventIds.length - b.eventIds.length || a.id!.localeCompare(b.id!));
}

describe('JobScheduler', () => {
  it('adds the events published together as jobs of up to MAX_EVENTS_PER_JOB, each named by its first event', async () => {
    const eventIds = Array.from({ length: 2 * MAX_EVENTS_PER_JOB + 10 }, (_, i) => `evt_${String(i).padStart(4, '0')}`);
    const events = eventIds.map((id) => ({ id, organizationId: 'org_1' }));
    await scheduler.publishEvents(events);
    const expected = [
      { id: eventIds[2 * MAX_EVENTS_PER_JOB], eventIds: eventIds.slice(2 * MAX_EVENTS_PER_JOB) },
      { id: eventIds[0], eventIds: eventIds.slice(0, MAX_EVENTS_PER_JOB) },
      { id: eventIds[MAX_EVENTS_PER_JOB], eventIds: eventIds.slice(MAX_EVENTS_PER_JOB, 2 * MAX_EVENTS_PER_JOB) },
    ];
    expect(await queued()).toEqual(expected);

    await scheduler.publishEvents(events);
    expect(await queued()).toEqual(expected);

    await scheduler.ensureEventDispatched(events[1]!);
    expect(await queued()).toEqual([{ id: eventIds[1], eventIds: [eventIds[1]] }, ...expected]);
  });

  it('keeps the names one server always had with one shard: `events` and `deliveries` under the prefix', async () => {
    expect(scheduler.queues.map((queue) => queue.name)).toEqual(['events', 'deliveries']);
    expect(await producer.exists(`${prefix}:events:id`, `${prefix}:events:meta`)).toBeGreaterThan(0);
  });

  it('spreads organizations over the shards, each organization always to one, each shard a hash tag of its own', async () => {
    expect(sharded.queues.map((queue) => queue.name)).toEqual(['{events-0}', '{events-1}', '{events-2}', '{deliveries-0}', '{deliveries-1}', '{deliveries-2}']);
    const events: PublishedEvent[] = Array.from({ length: 60 }, (_, i) => ({ id: `evt_${i}`, organizationId: `org_${i % 20}` }));
    await sharded.publishEvents(events);
    const shardOfEvent = new Map<string, number>();
    for (const [shard, queue] of sharded.events.entries())
      for (const job of await queue.getWaiting()) for (const id of job.data.eventIds as string[]) shardOfEvent.set(id, shard);
    expect(shardOfEvent.size).toBe(events.length);
    expect(new Set(shardOfEvent.values()).size).toBe(3);
    for (const event of events) expect(shardOfEvent.get(event.id)).toBe(shardOfEvent.get(`evt_${Number(event.organizationId.slice(4))}`));
  });
});
