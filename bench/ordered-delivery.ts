// Ordered delivery (docs/decisions.md#ordered-delivery): saturated deliveries of one organization's two
// subscriptions with `ordering: "resource"`, events spread over many tasks (several events each, so
// that each task's deliveries wait for one another), against the same with `ordering: "none"`,
// alternating twice in one run. What differs is the fan-out keeping resource and position on the
// rows (and looking for earlier undispatched events of their tasks), the partial index of pending
// ordered deliveries, and the claim's head-of-resource probe. Vacuumed before each measurement, the
// second round in the other order, as bench/subscriber-filters.ts does.
import type { Client } from 'pg';
import { createRedisConnection, JobScheduler, queueLayout } from '../packages/queue/src';
import { post, type BenchOrganization, type NoisyNeighbourBench } from './noisy-neighbour';
import { startReceiver } from './receiver';
import { subscriptionRounds } from './subscription-rounds';
import { printTable, type Measured } from './table';
import { taskRecord } from './task-record';

const SUBSCRIPTIONS = 2;
/** Events per task: 10,000 events are 1,000 tasks of 10 updates each. */
const EVENTS_PER_TASK = 10;

/** `count` task.updated events of the organization, about count / EVENTS_PER_TASK tasks, each task's in commit order. */
async function taskUpdates(pg: Client, org: BenchOrganization, projectId: string, count: number): Promise<string[]> {
  const run = Math.random().toString(36).slice(2, 8);
  const { rows } = await pg.query<{ id: string }>(
    `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "projectId", "createdAt")
     SELECT 'evt_bench' || md5(random()::text), $1, 'live', 'task.updated',
       jsonb_set($2::jsonb, '{id}', to_jsonb('tsk_bench' || $5 || (i % ($3 / $6))::text)), $4, now()
     FROM generate_series(0, $3 - 1) AS i ORDER BY i RETURNING id`,
    [org.id, JSON.stringify(taskRecord(projectId, org.userId)), count, projectId, run, EVENTS_PER_TASK],
  );
  return rows.map((row) => row.id);
}

export async function benchOrderedDelivery(bench: Omit<NoisyNeighbourBench, 'seconds'>): Promise<void> {
  const receiver = await startReceiver();
  const producer = createRedisConnection(bench.queues.redis, 'worker', 'bench-ordered-producer');
  const jobs = new JobScheduler(producer, queueLayout(bench.queues), (err) => console.error(err));
  const org = await bench.organization('Ordered');
  try {
    const project = await post(bench.base, org, '/v1/projects', { name: 'Ordered' });
    const webhooks: { id: string }[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      webhooks.push(await post(bench.base, org, '/v1/webhooks', { url: receiver.url, events: ['task.updated'], maxConcurrency: 100 }));
    }
    const rounds = subscriptionRounds(bench, { org, receiver, jobs, webhooks });
    const saturated = (label: string) => rounds.saturated(label, () => taskUpdates(bench.pg, org, project.id, bench.events));
    const runs = {
      unordered: async () => {
        await rounds.patchAll({ ordering: 'none' });
        return saturated('ordering "none"');
      },
      ordered: async () => {
        await rounds.patchAll({ ordering: 'resource' });
        return saturated(`ordering "resource", ${bench.events / EVENTS_PER_TASK} tasks`);
      },
    };
    for (const round of [1, 2]) {
      const order = round === 1 ? (['unordered', 'ordered'] as const) : (['ordered', 'unordered'] as const);
      const measured: Partial<Record<keyof typeof runs, Measured>> = {};
      for (const kind of order) measured[kind] = await runs[kind]();
      printTable(
        `Saturated deliveries, ordered by resource and not, round ${round} (${bench.events.toLocaleString('en-US')} events over ${bench.events / EVENTS_PER_TASK} tasks x ${SUBSCRIPTIONS} subscriptions)`,
        'delivery',
        measured.ordered!,
        measured.unordered!,
        [
          `The same worker, the same run, the same deliveries; ordered, each task's ${EVENTS_PER_TASK} go one at a time. CPU: the worker and its Postgres backends.`,
        ],
        'ordered / unordered',
      );
    }
  } finally {
    await jobs.close();
    producer.disconnect();
    await receiver.close();
  }
}
