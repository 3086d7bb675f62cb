import { EventPublisher } from '../src/event-publisher';
import type { PublishedEvent } from '../src/job-scheduler';

function setup(maxBatch = 100) {
  const batches: string[][] = [];
  const failures: string[][] = [];
  let refuse = false;
  const scheduler = {
    publishEvents: async (events: PublishedEvent[]) => {
      if (refuse) throw new Error('Redis down');
      batches.push(events.map((event) => event.id));
    },
  };
  const publisher = new EventPublisher(scheduler, { delayMs: 5, maxBatch, onError: (_err, events) => failures.push(events.map((event) => event.id)) });
  return { publisher, batches, failures, refuseNext: (value: boolean) => (refuse = value) };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('EventPublisher', () => {
  it('adds the ids published within the delay in one bulk call', async () => {
    const { publisher, batches } = setup();
    publisher.publish('org_1', ['evt_1']);
    publisher.publish('org_1', ['evt_2', 'evt_3']);
    publisher.publish('org_1', []);
    expect(batches).toEqual([]);
    await jest.advanceTimersByTimeAsync(5);
    publisher.publish('org_1', ['evt_4']);
    await jest.advanceTimersByTimeAsync(5);
    expect(batches).toEqual([['evt_1', 'evt_2', 'evt_3'], ['evt_4']]);
  });

  it('adds a full batch at once', async () => {
    const { publisher, batches } = setup(2);
    publisher.publish('org_1', ['evt_1', 'evt_2']);
    await jest.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([['evt_1', 'evt_2']]);
  });

  it('reports a batch Redis refused with its ids, and carries on with the next', async () => {
    const { publisher, batches, failures, refuseNext } = setup();
    refuseNext(true);
    publisher.publish('org_1', ['evt_1']);
    await jest.advanceTimersByTimeAsync(5);
    refuseNext(false);
    publisher.publish('org_1', ['evt_2']);
    await jest.advanceTimersByTimeAsync(5);
    expect(failures).toEqual([['evt_1']]);
    expect(batches).toEqual([['evt_2']]);
  });

  it('adds what is pending when flushed, without waiting for the delay', async () => {
    const { publisher, batches } = setup();
    publisher.publish('org_1', ['evt_1']);
    publisher.flush();
    await jest.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([['evt_1']]);
  });

  it('hands each event over with its organization', async () => {
    const published: PublishedEvent[] = [];
    const publisher = new EventPublisher(
      { publishEvents: async (events) => void published.push(...events) },
      { delayMs: 5, maxBatch: 100, onError: () => undefined },
    );
    publisher.publish('org_a', ['evt_1', 'evt_2']);
    publisher.publish('org_b', ['evt_3']);
    await jest.advanceTimersByTimeAsync(5);
    expect(published).toEqual([
      { id: 'evt_1', organizationId: 'org_a' },
      { id: 'evt_2', organizationId: 'org_a' },
      { id: 'evt_3', organizationId: 'org_b' },
    ]);
  });
});
