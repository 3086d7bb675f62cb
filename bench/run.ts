// `pnpm bench`: one table per hot path of a running `pnpm start` (WEBHOOK_ALLOWED_HOSTS=127.0.0.1),
// beside its bare baseline measured in the same run, with the CPU each spends per request read from
// /proc (the Node process and the Postgres backends serving it, and the Redis server):
//   1. POST /v1/tasks and GET /v1/tasks?projectId= (page of 50 + exact total of 1,000 tasks) vs
//      bare Express + `pg` doing the same SQL (bench/baseline-api.ts), autocannon, 50 connections;
//   2. webhook deliveries vs a bare BullMQ job loop POSTing the same body with undici
//      (bench/baseline-deliveries.ts), saturated, then event-to-receiver latency at half that rate;
//   3. a noisy neighbour (bench/noisy-neighbour.ts): saturated deliveries with and without another
//      organization's 4 s receiver holding 300 queued attempts, and a quiet organization's latency;
//   4. subscriber controls (bench/subscriber-filters.ts): saturated deliveries with and without a
//      project scope and a filter that every event passes, alternating, in one run;
//   5. ordered delivery (bench/ordered-delivery.ts): saturated deliveries of subscriptions ordered by
//      resource, over 1,000 tasks, against the same unordered, alternating, in one run;
//   6. bulk creates (bench/bulk-tasks.ts): CPU per task of 100 creates in one POST /v1/tasks/bulk
//      against 100 single POST /v1/tasks, alternating, BENCH_BULK_ROUNDS (10) rounds in one run;
//   7. tracing (bench/tracing.ts): POST /v1/tasks and saturated deliveries of an API and a worker it
//      starts traced (100% sampled, to an OTLP receiver) and not, alternating, in one run;
//   8. the event stream and feed (bench/event-stream.ts): 1,000 open streams against one (memory per
//      stream, commit-to-client p95) and feed pages per second against offset-list pages.
// Settings: BENCH_URL (http://127.0.0.1:3000), BENCH_SECONDS (10), BENCH_EVENTS (10000),
// BENCH_SERVER_CPU (pin the baselines to the CPU the service runs on, e.g. 0), BENCH_PATHS
// (post,list,webhooks,noisy,filters,ordered,bulk,tracing,stream,feed: the tables to print).
import { Client } from 'pg';
import { request } from 'undici';
import { loadApiConfig, loadDotEnv, loadWorkerConfig } from '@worktrack/config';
import { benchBulkTasks } from './bulk-tasks';
import { benchEventStream } from './event-stream';
import { benchHttpPaths } from './http-paths';
import { listeningPid, measureCpu } from './proc-cpu';
import { benchNoisyNeighbour, type NoisyNeighbourBench } from './noisy-neighbour';
import { benchOrderedDelivery } from './ordered-delivery';
import { organization } from './organization';
import { benchSubscriberFilters } from './subscriber-filters';
import { benchTracing } from './tracing';
import { benchWebhooks } from './webhook-paths';
import { redisServerPorts } from './queue-settings';
import { runToExit } from './run-to-exit';

const base = process.env.BENCH_URL ?? 'http://127.0.0.1:3000';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const events = Number(process.env.BENCH_EVENTS ?? 10_000);
const paths = new Set((process.env.BENCH_PATHS ?? 'post,list,webhooks,noisy,filters,ordered,bulk,tracing,stream,feed').split(','));
const LIST_TASKS = 1_000;

async function main() {
  loadDotEnv();
  const api = loadApiConfig();
  const worker = loadWorkerConfig();
  const pg = new Client({ connectionString: api.databaseUrl });
  await pg.connect();
  const redisPids = redisServerPorts(api.redis).map(listeningPid);
  const cpu = (pids: number[]) => measureCpu({ pg, pids, postgresPort: Number(new URL(api.databaseUrl).port || 5432), redisPids });
  const apiPid = listeningPid(Number(new URL(base).port));
  const workerPid = listeningPid(worker.healthPort);

  const http = await organization(api.databaseUrl, 'Bench');
  const post = async (path: string, body: object) => {
    const res = await request(`${base}${path}`, { method: 'POST', headers: http.headers, body: JSON.stringify(body) });
    if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${await res.body.text()}`);
    return (await res.body.json()) as { id: string };
  };
  const created = await post('/v1/projects', { name: 'Created' });
  const listed = await post('/v1/projects', { name: 'Listed' });
  const taskBody = { title: 'Benchmark task', projectId: listed.id, priority: 'high', description: 'x'.repeat(200) };
  for (let i = 0; i < LIST_TASKS; i += 50) await Promise.all(Array.from({ length: 50 }, () => post('/v1/tasks', taskBody)));
  // Autovacuum is off on the development machines: fresh statistics, or plans go astray.
  const analyze = async () => void (await pg.query('VACUUM ANALYZE "Task", "OutboxEvent", "Delivery", "DeliveryAttempt"'));
  await analyze();

  console.log(`# pnpm bench against ${base}: API pid ${apiPid}, worker pid ${workerPid}; ${seconds} s per measurement`);
  await benchHttpPaths(
    { base, databaseUrl: api.databaseUrl, headers: http.headers, seconds, apiPid, workerPid, organizationId: http.id, userId: http.userId, cpu, analyze },
    { post: paths.has('post') && JSON.stringify({ ...taskBody, projectId: created.id }), listProjectId: paths.has('list') && listed.id },
  );

  if (paths.has('webhooks')) {
    await analyze();
    const hooks = await organization(api.databaseUrl, 'Bench hooks');
    await benchWebhooks({
      base,
      headers: hooks.headers,
      seconds,
      events,
      apiPid,
      workerPid,
      queues: api,
      pg,
      organization: { id: hooks.id, userId: hooks.userId },
      cpu,
      serverCpu: process.env.BENCH_SERVER_CPU === undefined ? undefined : Number(process.env.BENCH_SERVER_CPU),
    });
  }
  // What the noisy-neighbour and subscriber-control tables share: the worker measured, its queues, fresh organizations.
  const deliveryBench: NoisyNeighbourBench = {
    base,
    seconds,
    events,
    workerPid,
    queues: api,
    pg,
    organization: (name) => organization(api.databaseUrl, name),
    cpu,
  };
  if (paths.has('noisy')) {
    await analyze();
    await benchNoisyNeighbour(deliveryBench);
  }
  if (paths.has('filters')) {
    await analyze();
    await benchSubscriberFilters(deliveryBench);
  }
  if (paths.has('ordered')) {
    await analyze();
    await benchOrderedDelivery(deliveryBench);
  }
  if (paths.has('bulk')) {
    await analyze();
    await benchBulkTasks({
      base,
      headers: http.headers,
      task: { ...taskBody, projectId: created.id },
      apiPid,
      workerPid,
      cpu,
      rounds: Number(process.env.BENCH_BULK_ROUNDS ?? 10),
    });
  }
  if (paths.has('tracing')) await benchTracing({ databaseUrl: api.databaseUrl, queues: api, seconds, events, cpu });
  await benchEventStream({ ...deliveryBench, apiPid }, { stream: paths.has('stream'), feed: paths.has('feed') });
  await pg.end();
}

runToExit(main);
