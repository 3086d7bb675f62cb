// Subscriber controls (docs/decisions.md#subscriber-controls): saturated deliveries of one organization's
// two subscriptions without filters, then with a project scope and a three-clause filter that every
// event passes (so both runs make the same deliveries), alternating twice in one run. What differs is
// the one subscription-match function evaluating the compiled filter in the outbox trigger and the
// fan-out's read; the ratio is its cost. The tables are vacuumed before each measurement (as
// autovacuum would be) and the second round runs in the other order, so that the delivery tables'
// growth during the run weighs on neither side.
import { createRedisConnection, JobScheduler, queueLayout } from '../packages/queue/src';
import { outboxEvents, post, type NoisyNeighbourBench } from './noisy-neighbour';
import { startReceiver } from './receiver';
import { subscriptionRounds } from './subscription-rounds';
import { printTable, type Measured } from './table';

const SUBSCRIPTIONS = 2;
// Every clause holds for the benchmark's task (taskRecord): high priority, a dueDate field (null), status todo.
const FILTER = { priority: { $in: ['high', 'medium'] }, dueDate: { $exists: true }, status: { $ne: 'done' } };

export async function benchSubscriberFilters(bench: Omit<NoisyNeighbourBench, 'seconds'>): Promise<void> {
  const receiver = await startReceiver();
  const producer = createRedisConnection(bench.queues.redis, 'worker', 'bench-filters-producer');
  const jobs = new JobScheduler(producer, queueLayout(bench.queues), (err) => console.error(err));
  const org = await bench.organization('Filtered');
  try {
    const project = await post(bench.base, org, '/v1/projects', { name: 'Filtered' });
    const webhooks: { id: string }[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      webhooks.push(await post(bench.base, org, '/v1/webhooks', { url: receiver.url, events: ['task.created'], maxConcurrency: 100 }));
    }
    const rounds = subscriptionRounds(bench, { org, receiver, jobs, webhooks });
    const saturated = (label: string) => rounds.saturated(label, () => outboxEvents(bench.pg, org, project.id, bench.events));
    const runs = {
      plain: async () => {
        await rounds.patchAll({ projectIds: null, filter: null });
        return saturated('no projects, no filter');
      },
      filtered: async () => {
        await rounds.patchAll({ projectIds: [project.id], filter: FILTER });
        return saturated('project-scoped, 3-clause filter');
      },
    };
    for (const round of [1, 2]) {
      const order = round === 1 ? (['plain', 'filtered'] as const) : (['filtered', 'plain'] as const);
      const measured: Partial<Record<keyof typeof runs, Measured>> = {};
      for (const kind of order) measured[kind] = await runs[kind]();
      printTable(
        `Saturated deliveries with and without subscriber controls, round ${round} (${bench.events.toLocaleString('en-US')} events x ${SUBSCRIPTIONS} subscriptions)`,
        'delivery',
        measured.filtered!,
        measured.plain!,
        [
          `The same worker, the same run; every event passes the filter ${JSON.stringify(FILTER)}, so both make the same deliveries. CPU: the worker and its Postgres backends (the outbox insert's trigger runs in the bench's own connection, not counted).`,
        ],
        'filtered / plain',
      );
    }
  } finally {
    await jobs.close();
    producer.disconnect();
    await receiver.close();
  }
}
