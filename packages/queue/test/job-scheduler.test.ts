import { randomUUID } from 'node:crypto';
import { createRedisConnection, JobScheduler, MAX_EVENTS_PER_JOB } from '../src/index';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
const producer = createRedisConnection(redisUrl, 'worker', 'test-scheduler-producer');
const scheduler = new JobScheduler(producer, prefix, () => undefined);

afterAll(async () => {
  await scheduler.events.obliterate({ force: true });
  await scheduler.close();
  producer.disconnect();
});

async function queued(): Promise<{ id: string | undefined; eventIds: string[] }[]> {
  const waiting = await scheduler.events.getWaiting();
  return waiting
    .map((job) => ({ id: job.id, eventIds: job.data.eventIds }))
    .sort((a, b) => a.eventIds.length - b.eventIds.length || a.id!.localeCompare(b.id!));
}

describe('JobScheduler', () => {
  it('adds the events published together as jobs of up to MAX_EVENTS_PER_JOB, each named by its first event', async () => {
    const eventIds = Array.from({ length: 2 * MAX_EVENTS_PER_JOB + 10 }, (_, i) => `evt_${String(i).padStart(4, '0')}`);
    await scheduler.publishEvents(eventIds);
    const expected = [
      { id: eventIds[2 * MAX_EVENTS_PER_JOB], eventIds: eventIds.slice(2 * MAX_EVENTS_PER_JOB) },
      { id: eventIds[0], eventIds: eventIds.slice(0, MAX_EVENTS_PER_JOB) },
      { id: eventIds[MAX_EVENTS_PER_JOB], eventIds: eventIds.slice(MAX_EVENTS_PER_JOB, 2 * MAX_EVENTS_PER_JOB) },
    ];
    expect(await queued()).toEqual(expected);

    await scheduler.publishEvents(eventIds);
    expect(await queued()).toEqual(expected);

    await scheduler.ensureEventDispatched(eventIds[1]!);
    expect(await queued()).toEqual([{ id: eventIds[1], eventIds: [eventIds[1]] }, ...expected]);
  });
});
