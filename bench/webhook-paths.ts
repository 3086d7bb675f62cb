// Webhook deliveries: worktrack's worker (fan-out to 2 subscriptions, fair claim, sign, POST, record)
// against a bare BullMQ job loop that signs and POSTs the same body with undici, same receiver.
import { Queue } from 'bullmq';
import type { Client } from 'pg';
import { request } from 'undici';
import { newId } from '@worktrack/db';
import { createRedisConnection, JobScheduler, queueLayout } from '../packages/queue/src';
import type { QueueSettings } from './queue-settings';
import { startChild } from './children';
import { measureCpuBusy, type CpuUse } from './proc-cpu';
import { paced, percentile, startReceiver, type Arrival, type Receiver } from './receiver';
import { cpuNote, printTable, type Measured } from './table';
import { taskRecord } from './task-record';

export interface WebhookBench {
  /** worktrack's base URL and the hooks organization's headers. */
  base: string;
  headers: Record<string, string>;
  seconds: number;
  /** Events fanned out in the saturated run (each makes 2 deliveries). */
  events: number;
  apiPid: number;
  workerPid: number;
  /** Where the services' queues are: the API's Redis settings. */
  queues: QueueSettings;
  pg: Client;
  organization: { id: string; userId: string };
  cpu(pids: number[]): Promise<{ stop(): Promise<CpuUse> }>;
  /** The CPU the services are pinned to (BENCH_SERVER_CPU), whose busy share the paced run reports. */
  serverCpu?: number;
}

const SUBSCRIPTIONS = 2;
/** Each subscription's cap: room for every attempt the worker makes at once. */
const MAX_CONCURRENCY = 100;
/** Bare jobs run before the measured ones, as the acceptance method warms its baseline up. */
const BARE_WARM_UP = 2_000;
export const SECRET = 'bench-secret-value';
/** Hash-tagged, so that it is one slot on a Redis Cluster too. */
export const BASELINE_QUEUE = '{bench-baseline-deliveries}';
const CHUNK = 1_000;
const CONNECTIONS = 50;

export async function inChunks<T>(items: T[], add: (chunk: T[]) => Promise<unknown>, chunk = CHUNK): Promise<void> {
  for (let i = 0; i < items.length; i += chunk) await add(items.slice(i, i + chunk));
}

/** A delivery body as the worker sends it, for the bare baseline's jobs. */
export function deliveryBody(organizationId: string, projectId: string, userId: string): string {
  return JSON.stringify({
    event: 'task.created',
    timestamp: new Date().toISOString(),
    webhookId: newId('webhook'),
    deliveryId: newId('delivery'),
    data: taskRecord(projectId, userId),
    organization: { id: organizationId, name: 'Bench hooks' },
  });
}

async function drain(receiver: Receiver, label: string, count: number, pids: number[], bench: WebhookBench, produce: () => Promise<void>): Promise<Measured> {
  await receiver.take();
  const window = await bench.cpu(pids);
  const started = Date.now();
  await produce();
  await receiver.waitFor(count);
  const seconds = (Math.max(...(await receiver.take()).map((a) => a.at)) - started) / 1000;
  return { label, count, seconds, cpu: await window.stop() };
}

async function atRate(
  receiver: Receiver,
  label: string,
  perSecond: number,
  pids: number[],
  bench: WebhookBench,
  send: () => Promise<void>,
  deliveriesPerSend: number,
): Promise<{ measured: Measured; arrivals: Arrival[]; serverCpuBusy?: number }> {
  await receiver.take();
  const window = await bench.cpu(pids);
  const busy = bench.serverCpu === undefined ? undefined : measureCpuBusy(bench.serverCpu);
  const started = Date.now();
  await paced(perSecond, bench.seconds, send);
  const count = Math.round(perSecond * bench.seconds) * deliveriesPerSend;
  await receiver.waitFor(count);
  const serverCpuBusy = busy?.stop();
  const arrivals = await receiver.take();
  const latencies = arrivals.map((a) => a.latencyMs);
  const seconds = (Date.now() - started) / 1000;
  const measured = { label, count, seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), cpu: await window.stop() };
  return { measured, arrivals, serverCpuBusy };
}

/**
 * Splits worktrack's event-to-receiver latencies at the fan-out statement (whose start is the event's
 * dispatchedAt): before it, the API's insert and commit, the publisher's gather, the job's pickup and
 * the read of the event; after it, the fan-out's write, signing and the POST.
 */
async function splitAtFanOut(pg: Client, arrivals: Arrival[]): Promise<string> {
  const { rows } = await pg.query<{ id: string; createdMs: number; dispatchedMs: number }>(
    `SELECT d.id, (extract(epoch FROM e."createdAt") * 1000)::float8 AS "createdMs", (extract(epoch FROM e."dispatchedAt") * 1000)::float8 AS "dispatchedMs"
     FROM "Delivery" d JOIN "OutboxEvent" e ON e.id = d."eventId" WHERE d.id = ANY ($1::text[])`,
    [arrivals.map((a) => a.deliveryId)],
  );
  const events = new Map(rows.map((row) => [row.id, row]));
  const before: number[] = [];
  const after: number[] = [];
  for (const arrival of arrivals) {
    const event = events.get(arrival.deliveryId);
    if (!event) continue;
    before.push(event.dispatchedMs - event.createdMs);
    after.push(arrival.at - event.dispatchedMs);
  }
  const spread = (ms: number[]) => `p50 ${Math.round(percentile(ms, 50))} ms, p99 ${Math.round(percentile(ms, 99))} ms`;
  return `Event to fan-out statement (API insert and commit, publish gather, job pickup, event read): ${spread(before)}; fan-out statement to receiver (fan-out write, sign, POST): ${spread(after)}.`;
}

export async function benchWebhooks(bench: WebhookBench): Promise<void> {
  const receiver = await startReceiver();
  const producer = createRedisConnection(bench.queues.redis, 'worker', 'bench-producer');
  const jobs = new JobScheduler(producer, queueLayout(bench.queues), (err) => console.error(err));
  const baselineConnection = createRedisConnection(bench.queues.redis, 'worker', 'bench-baseline');
  const baselineQueue = new Queue(BASELINE_QUEUE, { connection: baselineConnection, prefix: 'bench' });
  const baseline = await startChild('baseline-deliveries.ts', {
    BENCH_QUEUE: BASELINE_QUEUE,
    BENCH_PREFIX: 'bench',
    BENCH_RECEIVER: receiver.url,
    BENCH_SECRET: SECRET,
  });
  const api = async (path: string, body: object) => {
    const res = await request(`${bench.base}${path}`, { method: 'POST', headers: bench.headers, body: JSON.stringify(body) });
    if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${await res.body.text()}`);
    return (await res.body.json()) as { id: string };
  };
  try {
    // One busy organization with a fast receiver: each subscription may have as many attempts in flight as the worker makes.
    for (let i = 0; i < SUBSCRIPTIONS; i++)
      await api('/v1/webhooks', { url: receiver.url, events: ['task.created'], secret: SECRET, maxConcurrency: MAX_CONCURRENCY });
    const project = await api('/v1/projects', { name: 'Hooks' });
    const deliveries = bench.events * SUBSCRIPTIONS;
    const body = () => deliveryBody(bench.organization.id, project.id, bench.organization.userId);

    await inChunks(Array.from({ length: BARE_WARM_UP }, body), (bodies) => baselineQueue.addBulk(bodies.map((b) => ({ name: 'deliver', data: { body: b } }))));
    await receiver.waitFor(BARE_WARM_UP);
    const bare = await drain(receiver, 'bare BullMQ + undici', deliveries, [baseline.pid], bench, () =>
      inChunks(Array.from({ length: deliveries }, body), (bodies) => baselineQueue.addBulk(bodies.map((body) => ({ name: 'deliver', data: { body } })))),
    );
    // The events as create-task.ts writes and publishes them, minus the HTTP request: this measures the worker.
    const eventIds = Array.from({ length: bench.events }, () => newId('event'));
    await bench.pg.query(
      `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "createdAt")
       SELECT id, $1, 'live', 'task.created', $2::jsonb, now() FROM unnest($3::text[]) AS id`,
      [bench.organization.id, JSON.stringify(taskRecord(project.id, bench.organization.userId)), eventIds],
    );
    const worktrack = await drain(receiver, 'worktrack', deliveries, [bench.workerPid], bench, () =>
      inChunks(eventIds, (ids) => jobs.publishEvents(ids.map((id) => ({ id, organizationId: bench.organization.id })))),
    );
    printTable(
      `Webhook deliveries (${bench.events.toLocaleString('en-US')} events x ${SUBSCRIPTIONS} subscriptions capped at maxConcurrency ${MAX_CONCURRENCY}, saturated)`,
      'delivery',
      worktrack,
      bare,
      [
        `worktrack: outbox events published as the API does, then the worker: fan-out, fair claim, sign, POST, record. Baseline: ${BARE_WARM_UP.toLocaleString('en-US')} jobs to warm it up, then the measured ones added with addBulk, each signing and POSTing its body.`,
        'The worker here is the running one, on the shared database; bench/acceptance-deliveries.ts measures as acceptance does: a fresh worker and database each round, alternating with the bare job.',
      ],
    );

    // End to end: tasks created through the API as fast as it takes them, the worker delivering meanwhile.
    const createTask = { title: 'Benchmark task', projectId: project.id, priority: 'high', description: 'x'.repeat(200) };
    const tasks = Math.round(bench.events / 2);
    let created = 0;
    const endToEnd = await drain(receiver, 'end to end', tasks * SUBSCRIPTIONS, [bench.apiPid, bench.workerPid], bench, async () => {
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (created++ < tasks) await api('/v1/tasks', createTask);
        }),
      );
    });
    const saturated = endToEnd.count / endToEnd.seconds;
    console.log(
      `\nEnd to end, ${tasks.toLocaleString('en-US')} tasks created through POST /v1/tasks (${CONNECTIONS} connections) and delivered: ${Math.round(saturated).toLocaleString('en-US')} deliveries/s. ${cpuNote('API and worker', endToEnd.cpu, endToEnd.count, 'delivery')}`,
    );

    const rate = Math.max(SUBSCRIPTIONS, Math.round(saturated / 2));
    const pacedWorktrack = await atRate(
      receiver,
      'worktrack (event commit to receiver)',
      rate / SUBSCRIPTIONS,
      [bench.workerPid],
      bench,
      async () => {
        await api('/v1/tasks', createTask);
      },
      SUBSCRIPTIONS,
    );
    const pacedBare = await atRate(
      receiver,
      'bare BullMQ + undici (add to receiver)',
      rate,
      [baseline.pid],
      bench,
      async () => {
        await baselineQueue.add('deliver', { body: body() });
      },
      1,
    );
    printTable(
      `Event to receiver at half the end-to-end saturated rate (${rate.toLocaleString('en-US')} deliveries/s for ${bench.seconds} s)`,
      'delivery',
      pacedWorktrack.measured,
      pacedBare.measured,
      [
        "worktrack: tasks created through POST /v1/tasks; latency from the event's commit time (its body's timestamp) to arrival. CPU: the worker and its Postgres backends.",
        await splitAtFanOut(bench.pg, pacedWorktrack.arrivals),
        ...(pacedWorktrack.serverCpuBusy === undefined
          ? []
          : [
              `CPU ${bench.serverCpu} (the API's and the worker's) was ${Math.round(pacedWorktrack.serverCpuBusy * 100)}% busy meanwhile; ${Math.round(pacedBare.serverCpuBusy! * 100)}% for the bare loop.`,
            ]),
      ],
    );
  } finally {
    await baseline.stop();
    await baselineQueue.obliterate({ force: true });
    await Promise.all([baselineQueue.close(), jobs.close()]);
    baselineConnection.disconnect();
    producer.disconnect();
    await receiver.close();
  }
}
