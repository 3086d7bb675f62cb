// Saturated deliveries as acceptance measures them (../shared/notes/acceptance-measurements.md): the
// worker as it ships against a bare BullMQ job that signs and POSTs with undici, alternating, in one
// run, on a database and queues of the bench's own.
//   - one receiver process (bench/receiver-process.ts) on core 1, answering 200 at once;
//   - an enterprise organization with 2 subscriptions to task.created capped at maxConcurrency 100,
//     and another with 1 subscription at the default cap of 10;
//   - each round a fresh worker (`services/worker/src/main.ts`, WORKER_CONCURRENCY=50, LOG_LEVEL=warn,
//     core 0) with a preload counting its pg statements and Redis commands (bench/call-counts.ts);
//     300 events through the whole path, VACUUM ANALYZE, then BENCH_EVENTS (2,000) events written to
//     the outbox in one INSERT ... SELECT FROM generate_series and published with JobScheduler
//     (500 per publishEvents, one queue shard), to the 2 subscriptions (cap 100), then as many to
//     the one at cap 10;
//   - each round the bare job loop (bench/baseline-deliveries.ts, concurrency 50, core 0), fresh:
//     2,000 warm-up jobs, then 8,000 added with addBulk;
//   - deliveries/s = deliveries / (last arrival - start); CPU per delivery from /proc: the process and
//     the Postgres backends serving it (the window ends once every record has committed).
// BENCH_ROUNDS (2) rounds, the second in the other order; the median of the rounds' ratios.
//   pnpm bench:acceptance   (node --import tsx bench/acceptance-deliveries.ts)
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { loadWorkerConfig } from '@worktrack/config';
import { newId, SecretBox, webhookSecretContext } from '@worktrack/db';
import { createRedisConnection, JobScheduler, queueLayout } from '../packages/queue/src';
import { exitCode, freePort, repoRoot, spawnLogged, waitForHttp } from '../test/support/processes';
import { createDatabase, dropDatabase } from './bench-database';
import { startChild } from './children';
import { outboxEvents, type BenchOrganization } from './noisy-neighbour';
import { organization } from './organization';
import { listeningPid, measureCpu, type CpuUse } from './proc-cpu';
import { redisServerPorts } from './queue-settings';
import { startReceiver } from './receiver';
import { runToExit } from './run-to-exit';
import { obliterateServiceQueues } from './service-queues';
import { printTable, type Measured } from './table';
import type { CallCounts } from './call-counts';
import { BASELINE_QUEUE, deliveryBody, inChunks, SECRET } from './webhook-paths';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARM_UP_EVENTS = 300;
const PUBLISH_BATCH = 500;
const BASELINE_WARM_UP = 2_000;
const BASELINE_JOBS = 8_000;
const SERVICE_CPU = '0';
const RECEIVER_CPU = '1';
const SATURATED = { subscriptions: 2, maxConcurrency: 100 };
const CAPPED = { subscriptions: 1, maxConcurrency: 10 };

interface Subscriber extends BenchOrganization {
  projectId: string;
  subscriptions: number;
}

type Calls = Omit<CallCounts, 'signal'>;

interface Run extends Measured {
  calls?: Calls;
  /** The database's backends at the window's end, and how many of them it opened. */
  backends?: { all: number; opened: number };
}

/** The calls made between two readings of the counts. */
function callsBetween(before: Calls, after: Calls): Calls {
  const statements: Calls['statements'] = {};
  for (const [name, { calls, rows }] of Object.entries(after.statements)) {
    const earlier = before.statements[name] ?? { calls: 0, rows: 0 };
    if (calls > earlier.calls) statements[name] = { calls: calls - earlier.calls, rows: rows - earlier.rows };
  }
  return { pg: after.pg - before.pg, redis: after.redis - before.redis, statements };
}

const pin = (pid: number, cpu: string) => execFileSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' });

async function subscriber(pg: Client, databaseUrl: string, receiverUrl: string, name: string, caps: typeof SATURATED): Promise<Subscriber> {
  const org = await organization(databaseUrl, name);
  const projectId = newId('project');
  await pg.query(`INSERT INTO "Project" (id, "organizationId", mode, name, "updatedAt") VALUES ($1, $2, 'live', 'Hooks', now())`, [projectId, org.id]);
  // As POST /v1/webhooks stores one: its secret sealed under the worker's key.
  const secrets = new SecretBox(loadWorkerConfig().secretsKeys);
  for (let i = 0; i < caps.subscriptions; i++) {
    const id = newId('webhook');
    await pg.query(
      `INSERT INTO "Webhook" (id, "organizationId", mode, url, events, secret, "maxConcurrency", "createdAt", "updatedAt")
       VALUES ($1, $2, 'live', $3, '{task.created}', $4, $5, now(), now())`,
      [id, org.id, receiverUrl, secrets.seal(SECRET, webhookSecretContext(id)), caps.maxConcurrency],
    );
  }
  return { ...org, projectId, subscriptions: caps.subscriptions };
}

/** The worker as it ships, on the service core, with the call-counting preload; started fresh each round. */
async function startWorker(databaseUrl: string, redisPrefix: string, countsFile: string) {
  const healthPort = await freePort();
  const worker = spawnLogged(
    ['taskset', '-c', SERVICE_CPU, process.execPath, '--import', 'tsx', '--import', path.join(__dirname, 'call-counts.ts'), 'services/worker/src/main.ts'],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        DATABASE_DIRECT_URL: databaseUrl,
        REDIS_PREFIX: redisPrefix,
        QUEUE_SHARDS: '1',
        WORKER_CONCURRENCY: '50',
        WORKER_HEALTH_PORT: String(healthPort),
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        BENCH_CALL_COUNTS: countsFile,
      },
    },
  );
  await waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, 90_000);
  let asked = 0;
  return {
    pid: worker.pid!,
    /** The preload's counts so far (it writes them when signalled). */
    async calls(): Promise<Calls> {
      asked++;
      worker.kill('SIGUSR2');
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          const counts = JSON.parse(readFileSync(countsFile, 'utf8')) as CallCounts;
          if (counts.signal === asked) return counts;
        } catch {
          // not written yet, or being written
        }
        if (Date.now() > deadline) throw new Error('the worker did not write its call counts');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async stop() {
      worker.kill('SIGTERM');
      if ((await exitCode(worker, 30_000)) !== 0) console.error(worker.errorOutput());
    },
  };
}

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/worktrack';
  const databaseUrl = createDatabase('acceptance', serverUrl);
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const { redis } = loadWorkerConfig();
  const redisPrefix = `bench-acceptance-${Date.now().toString(36)}`;
  const countsFile = path.join(tmpdir(), `${redisPrefix}-calls.json`);
  const receiver = await startReceiver();
  pin(listeningPid(Number(new URL(receiver.url).port)), RECEIVER_CPU);
  const producer = createRedisConnection(redis, 'worker', 'bench-acceptance');
  const layout = queueLayout({ redis, redisPrefix, queueShards: 1 });
  const jobs = new JobScheduler(producer, layout, (err) => console.error(err));
  const baselineQueue = new Queue(BASELINE_QUEUE, { connection: producer, prefix: redisPrefix });
  const cpu = (pids: number[]) =>
    measureCpu({ pg, pids, postgresPort: Number(new URL(databaseUrl).port || 5432), redisPids: redisServerPorts(redis).map(listeningPid) });
  const ratios: { throughput: number[]; cpu: number[]; postgres: number[]; capped: number[] } = { throughput: [], cpu: [], postgres: [], capped: [] };
  try {
    const saturated = await subscriber(pg, databaseUrl, receiver.url, 'Acceptance', SATURATED);
    const capped = await subscriber(pg, databaseUrl, receiver.url, 'Acceptance capped', CAPPED);

    /** Events of one organization through the worker: from their publication to the last record. */
    const deliveries = async (worker: Awaited<ReturnType<typeof startWorker>>, org: Subscriber, events: number, label: string): Promise<Run> => {
      const eventIds = await outboxEvents(pg, org, org.projectId, events);
      const count = events * org.subscriptions;
      await receiver.take();
      const callsBefore = await worker.calls();
      const window = await cpu([worker.pid]);
      const started = Date.now();
      await inChunks(eventIds, (ids) => jobs.publishEvents(ids.map((id) => ({ id, organizationId: org.id }))), PUBLISH_BATCH);
      await receiver.waitFor(count);
      const seconds = (Math.max(...(await receiver.take()).map((a) => a.at)) - started) / 1000;
      await recorded(pg, org.id);
      const used: CpuUse = await window.stop();
      const callsAfter = await worker.calls();
      const { rows } = await pg.query<{ all: number; opened: number }>(
        `SELECT count(*)::int AS all, count(*) FILTER (WHERE backend_start > $1)::int AS opened FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        [new Date(started)],
      );
      return { label, count, seconds, cpu: used, calls: callsBetween(callsBefore, callsAfter), backends: rows[0] };
    };

    const worktrack = async () => {
      const worker = await startWorker(databaseUrl, redisPrefix, countsFile);
      try {
        await deliveries(worker, saturated, WARM_UP_EVENTS, 'warm-up');
        await pg.query('VACUUM ANALYZE');
        return { saturated: await deliveries(worker, saturated, EVENTS, 'worktrack (cap 100)'), capped: await deliveries(worker, capped, EVENTS, 'cap 10') };
      } finally {
        await worker.stop();
      }
    };

    const bare = async (): Promise<Run> => {
      const baseline = await startChild('baseline-deliveries.ts', {
        BENCH_QUEUE: BASELINE_QUEUE,
        BENCH_PREFIX: redisPrefix,
        BENCH_RECEIVER: receiver.url,
        BENCH_SECRET: SECRET,
      });
      pin(baseline.pid, SERVICE_CPU);
      const add = (count: number) =>
        inChunks(
          Array.from({ length: count }, () => deliveryBody(saturated.id, saturated.projectId, saturated.userId)),
          (bodies) => baselineQueue.addBulk(bodies.map((body) => ({ name: 'deliver', data: { body } }))),
        );
      try {
        await receiver.take();
        await add(BASELINE_WARM_UP);
        await receiver.waitFor(BASELINE_WARM_UP);
        await receiver.take();
        const window = await cpu([baseline.pid]);
        const started = Date.now();
        await add(BASELINE_JOBS);
        await receiver.waitFor(BASELINE_JOBS);
        const seconds = (Math.max(...(await receiver.take()).map((a) => a.at)) - started) / 1000;
        return { label: 'bare BullMQ + undici', count: BASELINE_JOBS, seconds, cpu: await window.stop() };
      } finally {
        await baseline.stop();
      }
    };

    for (let round = 1; round <= ROUNDS; round++) {
      let measured: Awaited<ReturnType<typeof worktrack>>;
      let baseline: Run;
      if (round % 2 === 1) {
        measured = await worktrack();
        baseline = await bare();
      } else {
        baseline = await bare();
        measured = await worktrack();
      }
      const w = measured.saturated;
      const perDelivery = (m: Run, us: number) => us / m.count;
      ratios.throughput.push(w.count / w.seconds / (baseline.count / baseline.seconds));
      ratios.cpu.push(perDelivery(w, w.cpu.nodeUs + w.cpu.postgresUs) / perDelivery(baseline, baseline.cpu.nodeUs));
      ratios.postgres.push(perDelivery(w, w.cpu.postgresUs));
      ratios.capped.push(measured.capped.count / measured.capped.seconds);
      const calls = (m: Run) => `${(m.calls!.pg / m.count).toFixed(3)} pg statements and ${(m.calls!.redis / m.count).toFixed(3)} Redis commands`;
      const statements = (m: Run) =>
        Object.entries(m.calls!.statements)
          .sort(([, a], [, b]) => b.calls - a.calls)
          .map(([name, { calls, rows }]) => `${name}: ${calls} (${(rows / calls).toFixed(1)} rows each)`)
          .join('; ');
      printTable(
        `Acceptance deliveries, round ${round} (${EVENTS.toLocaleString('en-US')} events x ${SATURATED.subscriptions} subscriptions capped at maxConcurrency ${SATURATED.maxConcurrency}; bare: ${BASELINE_JOBS.toLocaleString('en-US')} jobs)`,
        'delivery',
        w,
        baseline,
        [
          `The worker made ${calls(w)} per delivery, on ${w.backends!.all} backends (${w.backends!.opened} opened meanwhile); statements: ${statements(w)}.`,
          `One subscription at the default cap of ${CAPPED.maxConcurrency}, ${EVENTS.toLocaleString('en-US')} events: ${Math.round(measured.capped.count / measured.capped.seconds).toLocaleString('en-US')} deliveries/s, ${Math.round(measured.capped.cpu.nodeUs / measured.capped.count)} µs worker + ${Math.round(measured.capped.cpu.postgresUs / measured.capped.count)} µs Postgres CPU and ${calls(measured.capped)} per delivery, on ${measured.capped.backends!.all} backends (${measured.capped.backends!.opened} opened meanwhile); statements: ${statements(measured.capped)}.`,
        ],
      );
    }
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    };
    const range = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
    console.log(
      `\nMedian over ${ROUNDS} rounds: deliveries ${median(ratios.throughput).toFixed(2)}x the bare job (${range(ratios.throughput, 2)}); worker + Postgres CPU per delivery ${median(ratios.cpu).toFixed(2)}x the bare job's (${range(ratios.cpu, 2)}); Postgres ${range(ratios.postgres, 0)} µs per delivery; cap ${CAPPED.maxConcurrency}: ${range(ratios.capped, 0)} deliveries/s.`,
    );
  } finally {
    await baselineQueue.obliterate({ force: true });
    await obliterateServiceQueues(producer, layout);
    await Promise.all([baselineQueue.close(), jobs.close()]);
    producer.disconnect();
    await receiver.close();
    await pg.end();
    await dropDatabase(databaseUrl);
    rmSync(countsFile, { force: true });
  }
}

/** Waits (bounded) until no delivery of the organization is pending: every attempt's record has committed. */
async function recorded(pg: Client, organizationId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Delivery" WHERE "organizationId" = $1 AND status = 'pending'`, [
      organizationId,
    ]);
    if (rows[0]!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.n} deliveries still pending after a minute`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

runToExit(main);
