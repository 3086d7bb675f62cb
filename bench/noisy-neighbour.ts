// A noisy neighbour (docs/decisions.md#fair-delivery): one organization's receiver answers after 4 s with 300 attempts
// queued. Prints the saturated deliveries per second of another organization with and without it
// in the same run (and the worker's CPU per delivery), and a quiet organization's event-to-receiver
// latency meanwhile.
import type { Client } from 'pg';
import { request } from 'undici';
import { createRedisConnection, JobScheduler, queueLayout } from '../packages/queue/src';
import type { QueueSettings } from './queue-settings';
import type { CpuUse } from './proc-cpu';
import { paced, percentile, startReceiver } from './receiver';
import { printTable, type Measured } from './table';
import { taskRecord } from './task-record';

export interface BenchOrganization {
  id: string;
  userId: string;
  headers: Record<string, string>;
}

export interface NoisyNeighbourBench {
  base: string;
  seconds: number;
  /** Events fanned out in each saturated run (each makes 2 deliveries). */
  events: number;
  workerPid: number;
  /** Where the services' queues are: the API's Redis settings. */
  queues: QueueSettings;
  pg: Client;
  organization(name: string): Promise<BenchOrganization>;
  cpu(pids: number[]): Promise<{ stop(): Promise<CpuUse> }>;
}

const NOISY_BACKLOG = 300;
const QUIET_PER_SECOND = 10;
/** The busy organization's subscriptions: as many as the saturated webhook path, with room for its fast receiver. */
const BUSY_SUBSCRIPTIONS = 2;
const BUSY_CAPS = { maxConcurrency: 100 };

export async function post(base: string, org: BenchOrganization, path: string, body: object): Promise<{ id: string }> {
  const res = await request(`${base}${path}`, { method: 'POST', headers: org.headers, body: JSON.stringify(body) });
  if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${await res.body.text()}`);
  return (await res.body.json()) as { id: string };
}

/** Writes `count` task.created events of the organization to the outbox, as create-task.ts does, minus the request. */
export async function outboxEvents(pg: Client, org: BenchOrganization, projectId: string, count: number): Promise<string[]> {
  const { rows } = await pg.query<{ id: string }>(
    `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "projectId", "createdAt")
     SELECT 'evt_bench' || md5(random()::text), $1, 'live', 'task.created', $2::jsonb, $4, now() FROM generate_series(1, $3) RETURNING id`,
    [org.id, JSON.stringify(taskRecord(projectId, org.userId)), count, projectId],
  );
  return rows.map((row) => row.id);
}

export async function benchNoisyNeighbour(bench: NoisyNeighbourBench): Promise<void> {
  const receiver = await startReceiver();
  const producer = createRedisConnection(bench.queues.redis, 'worker', 'bench-noisy-producer');
  const jobs = new JobScheduler(producer, queueLayout(bench.queues), (err) => console.error(err));
  const [busy, noisy, quiet] = [await bench.organization('Busy'), await bench.organization('Noisy'), await bench.organization('Quiet')];
  const subscribe = (org: BenchOrganization, url: string, caps = {}) => post(bench.base, org, '/v1/webhooks', { url, events: ['task.created'], ...caps });
  try {
    for (let i = 0; i < BUSY_SUBSCRIPTIONS; i++) await subscribe(busy, receiver.url, BUSY_CAPS);
    const slow = await subscribe(noisy, `${receiver.url}/slow`);
    await subscribe(quiet, receiver.url);
    const [busyProject, noisyProject, quietProject] = await Promise.all(
      [busy, noisy, quiet].map((org) => post(bench.base, org, '/v1/projects', { name: 'Hooks' })),
    );

    const saturated = async (label: string, events = bench.events): Promise<Measured> => {
      const eventIds = await outboxEvents(bench.pg, busy, busyProject!.id, events);
      const count = events * BUSY_SUBSCRIPTIONS;
      await receiver.take();
      const window = await bench.cpu([bench.workerPid]);
      const started = Date.now();
      await jobs.publishEvents(eventIds.map((id) => ({ id, organizationId: busy.id })));
      await receiver.waitFor(count);
      const seconds = (Math.max(...(await receiver.take()).map((a) => a.at)) - started) / 1000;
      return { label, count, seconds, cpu: await window.stop() };
    };

    // Unmeasured: the first saturated run of a fresh worker is slower (code not yet optimised, caches cold).
    await saturated('warm-up', Math.ceil(bench.events / 5));
    const alone = await saturated('alone');
    await jobs.publishEvents((await outboxEvents(bench.pg, noisy, noisyProject!.id, NOISY_BACKLOG)).map((id) => ({ id, organizationId: noisy.id })));
    await waitForInFlight(bench.pg, slow.id, 10);
    const beside = await saturated(`beside a 4 s receiver with ${NOISY_BACKLOG} queued`);
    printTable(
      `Saturated deliveries of one organization (${bench.events.toLocaleString('en-US')} events x ${BUSY_SUBSCRIPTIONS} subscriptions)`,
      'delivery',
      beside,
      alone,
      [
        `The same worker, the same run: alone, then while another organization's receiver holds each of its attempts 4 s with ${NOISY_BACKLOG} queued. CPU: the worker and its Postgres backends.`,
      ],
      'beside / alone',
    );

    await receiver.take();
    const quietCount = QUIET_PER_SECOND * bench.seconds;
    await paced(QUIET_PER_SECOND, bench.seconds, async () => {
      await post(bench.base, quiet, '/v1/tasks', { title: 'Quiet task', projectId: quietProject!.id });
    });
    await receiver.waitFor(quietCount);
    const latencies = (await receiver.take()).map((a) => a.latencyMs);
    console.log(
      `\nA quiet organization meanwhile (${quietCount} tasks through POST /v1/tasks, ${QUIET_PER_SECOND}/s): event to receiver p50 ${Math.round(percentile(latencies, 50))} ms, p95 ${Math.round(percentile(latencies, 95))} ms; the slow subscription had ${await inFlight(bench.pg, slow.id)} attempts in flight.`,
    );
    await request(`${bench.base}/v1/webhooks/${slow.id}`, { method: 'DELETE', headers: noisy.headers });
  } finally {
    await jobs.close();
    producer.disconnect();
    await receiver.close();
  }
}

async function inFlight(pg: Client, webhookId: string): Promise<number> {
  const { rows } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Delivery" WHERE "webhookId" = $1 AND "lockedUntil" > now()`, [webhookId]);
  return rows[0]!.n;
}

async function waitForInFlight(pg: Client, webhookId: string, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await inFlight(pg, webhookId)) < count) {
    if (Date.now() > deadline) throw new Error(`the slow subscription never had ${count} attempts in flight`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
