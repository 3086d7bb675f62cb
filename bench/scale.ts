// `pnpm bench:scale`: deliveries per second and CPU per delivery with 1, 2 and 4 worker processes,
// against one Redis server and against a three-master Redis Cluster (QUEUE_SHARDS=4), each started
// by the bench from Debian's packages on loopback ports 27300-27399, with a database of its own.
// The events are written to the outbox as the API writes them and published as it does, spread
// over BENCH_ORGS organizations with one subscription each; the workers are the shipped entry
// point, one process each. CPU read from /proc: the workers, their Postgres backends, the Redis
// servers. Settings: BENCH_EVENTS (6000 per measurement), BENCH_ORGS (8), DATABASE_URL (the server).
import { Client } from 'pg';
import { createLogger, loadApiConfig, type RedisTarget } from '@worktrack/config';
import { createDb, unscopedData } from '@worktrack/db';
import { createRedisConnection, JobScheduler, queueLayout } from '../packages/queue/src';
import { startApi } from '../services/api/src/compose';
import { bootstrapOrganization } from '../services/api/src/modules/organizations/bootstrap-organization';
import { exitCode, runEntry, waitForHttp } from '../test/support/processes';
import { startClusterTopology, startServerTopology } from '../test/support/redis-topologies';
import { createDatabase, dropDatabase } from './bench-database';
import { measureCpu, type CpuUse } from './proc-cpu';
import { startReceiver, type Receiver } from './receiver';
import { runToExit } from './run-to-exit';
import { taskRecord } from './task-record';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 6_000);
const ORGS = Number(process.env.BENCH_ORGS ?? 8);
const WORKER_COUNTS = [1, 2, 4];
const PORTS = { server: 27300, cluster: 27310, api: 27330, workerHealth: 27340 };
const CLUSTER_SHARDS = 4;

interface Setup {
  label: string;
  env: NodeJS.ProcessEnv;
  redisPids: number[];
}

interface Organization {
  id: string;
  userId: string;
}

/** Organizations with one subscription each to the receiver, made through the API as users make them. */
async function subscribedOrganizations(env: NodeJS.ProcessEnv, receiverUrl: string): Promise<Organization[]> {
  const api = await startApi(loadApiConfig({ ...env, PORT: String(PORTS.api) }), createLogger('silent', 'bench'));
  const db = createDb(env.DATABASE_URL!, { poolSize: 2 });
  try {
    const orgs: Organization[] = [];
    for (let i = 0; i < ORGS; i++) {
      const org = await bootstrapOrganization(unscopedData({ db }), {
        name: `Scale ${i}`,
        email: `scale-${i}-${Date.now()}@example.com`,
        plan: 'enterprise',
        dailyQuota: 100_000_000,
      });
      const res = await fetch(`${api.url}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.liveKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiverUrl, events: ['task.created'], maxConcurrency: 100 }),
      });
      if (res.status !== 201) throw new Error(`POST /v1/webhooks: ${res.status} ${await res.text()}`);
      orgs.push({ id: org.organization.id, userId: org.user.id });
    }
    return orgs;
  } finally {
    await db.$disconnect();
    await api.close();
  }
}

/** Writes `count` task.created events to the outbox, round robin over the organizations, as create-task.ts does minus the request. */
async function outboxEvents(pg: Client, orgs: Organization[], count: number): Promise<{ id: string; organizationId: string }[]> {
  const events: { id: string; organizationId: string }[] = [];
  for (const [i, org] of orgs.entries()) {
    const { rows } = await pg.query<{ id: string }>(
      `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "createdAt")
       SELECT 'evt_scale' || md5(random()::text), $1, 'live', 'task.created', $2::jsonb, now() FROM generate_series(1, $3) RETURNING id`,
      [org.id, JSON.stringify(taskRecord('prj_scale', org.userId)), Math.floor(count / orgs.length) + (i < count % orgs.length ? 1 : 0)],
    );
    events.push(...rows.map((row) => ({ id: row.id, organizationId: org.id })));
  }
  return events;
}

async function measure(setup: Setup, workers: number, orgs: Organization[], receiver: Receiver, pg: Client, redis: RedisTarget) {
  const producer = createRedisConnection(redis, 'worker', 'bench-scale-producer');
  const config = loadApiConfig(setup.env);
  const jobs = new JobScheduler(producer, queueLayout(config), (err) => console.error(err));
  const children = Array.from({ length: workers }, (_, i) =>
    runEntry('services/worker/src/main.ts', [], { ...setup.env, WORKER_HEALTH_PORT: String(PORTS.workerHealth + i), LOG_LEVEL: 'error' }),
  );
  try {
    await Promise.all(children.map((_, i) => waitForHttp(`http://127.0.0.1:${PORTS.workerHealth + i}/readyz`, 90_000)));
    const run = async (count: number) => {
      const events = await outboxEvents(pg, orgs, count);
      await pg.query('VACUUM ANALYZE "OutboxEvent", "Delivery", "DeliveryAttempt", "Webhook"');
      await receiver.take();
      const window = await measureCpu({
        pg,
        pids: children.map((child) => child.pid!),
        postgresPort: Number(new URL(setup.env.DATABASE_URL!).port || 5432),
        redisPids: setup.redisPids,
      });
      const started = Date.now();
      await jobs.publishEvents(events);
      await receiver.waitFor(count);
      const seconds = (Math.max(...(await receiver.take()).map((a) => a.at)) - started) / 1000;
      return { seconds, cpu: await window.stop() };
    };
    await run(Math.ceil(EVENTS / 10)); // warm-up: JIT, connections, pools
    return await run(EVENTS);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => exitCode(child)));
    await jobs.close();
    producer.disconnect();
  }
}

const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
const perDelivery = (us: number) => Math.round(us / EVENTS);

function printRow(label: string, workers: number, result: { seconds: number; cpu: CpuUse }): void {
  const { cpu } = result;
  console.log(
    row([
      label,
      workers,
      Math.round(EVENTS / result.seconds).toLocaleString('en-US'),
      perDelivery(cpu.nodeUs),
      perDelivery(cpu.postgresUs),
      perDelivery(cpu.redisUs),
      perDelivery(cpu.nodeUs + cpu.postgresUs + cpu.redisUs),
    ]),
  );
}

async function main() {
  const databaseUrl = createDatabase('scale');
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const receiver = await startReceiver();
  const server = await startServerTopology(PORTS.server);
  const cluster = await startClusterTopology(PORTS.cluster);
  const common = { ...process.env, DATABASE_URL: databaseUrl, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', REDIS_PREFIX: 'scale' };
  const setups: Setup[] = [
    { label: 'one Redis server', env: { ...common, REDIS_URL: server.url, QUEUE_SHARDS: '1' }, redisPids: server.pids },
    {
      label: `Redis Cluster, 3 masters, QUEUE_SHARDS=${CLUSTER_SHARDS}`,
      env: { ...common, REDIS_CLUSTER_NODES: cluster.nodes, QUEUE_SHARDS: String(CLUSTER_SHARDS) },
      redisPids: cluster.pids,
    },
  ];
  try {
    console.log(`# pnpm bench:scale: ${EVENTS.toLocaleString('en-US')} events over ${ORGS} organizations (one subscription each) per measurement\n`);
    console.log(row(['Redis', 'workers', 'deliveries/s', 'workers µs/delivery', 'Postgres µs/delivery', 'Redis µs/delivery', 'CPU µs/delivery']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const setup of setups) {
      const orgs = await subscribedOrganizations(setup.env, receiver.url);
      const redis = loadApiConfig(setup.env).redis;
      for (const workers of WORKER_COUNTS) printRow(setup.label, workers, await measure(setup, workers, orgs, receiver, pg, redis));
    }
  } finally {
    await receiver.close();
    await Promise.all([server.stop(), cluster.stop()]);
    await pg.end();
    await dropDatabase(databaseUrl);
  }
}

runToExit(main);
