// `pnpm bench`: load figures of the running service (`pnpm start`, with WEBHOOK_ALLOWED_HOSTS=127.0.0.1
// for the webhook part) beside baselines measured in the same run:
//   1. POST /v1/tasks and GET /v1/tasks?projectId=... vs a bare Express endpoint (autocannon, 50 connections);
//   2. task creations fanned out to 2 webhook subscriptions: deliveries/s and event-to-receiver latency,
//      vs a raw undici POST loop to the same receiver.
// Settings: BENCH_URL (default http://127.0.0.1:3000), BENCH_SECONDS (10), BENCH_TASKS (10000),
// BENCH_SERVER_CPU (pin the bare Express baseline to the CPU the service runs on, e.g. 0).
import { execFileSync, fork } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { loadApiConfig, loadDotEnv } from '@worktrack/config';
import { createDb } from '@worktrack/db';
import { bootstrapOrganization } from '../services/api/src/modules/organizations/bootstrap-organization';

const base = process.env.BENCH_URL ?? 'http://127.0.0.1:3000';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const taskCount = Number(process.env.BENCH_TASKS ?? 10_000);

async function load(title: string, url: string, options: Partial<autocannon.Options> = {}) {
  const result = await autocannon({ url, connections: 50, duration: seconds, ...options });
  const row = { title, 'req/s': Math.round(result.requests.average), 'p50 ms': result.latency.p50, 'p99 ms': result.latency.p99, non2xx: result.non2xx, errors: result.errors };
  console.log(JSON.stringify(row));
  return row;
}

async function startBareExpress() {
  const port = 3999;
  const child = fork(path.join(__dirname, 'bare-express.ts'), [], { env: { ...process.env, PORT: String(port) }, execArgv: ['--import', 'tsx'] });
  await once(child, 'message');
  if (process.env.BENCH_SERVER_CPU) execFileSync('taskset', ['-p', '-c', process.env.BENCH_SERVER_CPU, String(child.pid)]);
  return { url: `http://127.0.0.1:${port}/bare`, stop: () => child.kill('SIGTERM') };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function startReceiver() {
  const arrivals: { at: number; latencyMs: number }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp?: string };
      if (body.timestamp) arrivals.push({ at, latencyMs: at - Date.parse(body.timestamp) });
      res.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals, close: () => server.close() };
}

async function runConcurrently(total: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) await work(next++);
  }));
}

async function main() {
  loadDotEnv();
  const db = createDb(loadApiConfig().databaseUrl, { poolSize: 2 });
  const org = await bootstrapOrganization(db, { name: 'Bench', email: `bench-${Date.now()}@example.com`, plan: 'enterprise', dailyQuota: 100_000_000 });
  await db.$disconnect();
  const auth = { authorization: `Bearer ${org.liveKey}`, 'content-type': 'application/json' };
  const api = async (method: 'POST' | 'GET', route: string, body?: object) => {
    const res = await request(`${base}${route}`, { method, headers: auth, body: body && JSON.stringify(body) });
    const json = (await res.body.json()) as { id: string };
    if (res.statusCode >= 300) throw new Error(`${method} ${route}: ${res.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  const project = await api('POST', '/v1/projects', { name: 'Bench' });
  const taskBody = JSON.stringify({ title: 'Benchmark task', projectId: project.id, priority: 'high', description: 'x'.repeat(200) });

  console.log(`# HTTP: ${seconds} s each, 50 connections, against ${base}`);
  const bare = await startBareExpress();
  const rows = [
    await load('bare Express GET', bare.url),
    await load('bare Express POST (JSON)', bare.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: taskBody }),
    await load('POST /v1/tasks', `${base}/v1/tasks`, { method: 'POST', headers: auth, body: taskBody }),
    await load('GET /v1/tasks?projectId', `${base}/v1/tasks?projectId=${project.id}&limit=50`, { headers: auth }),
  ];
  bare.stop();
  const rate = (title: string) => rows.find((r) => r.title === title)!['req/s'];
  console.log(`POST /v1/tasks = ${(rate('POST /v1/tasks') / rate('bare Express POST (JSON)')).toFixed(2)}x bare POST; GET /v1/tasks = ${(rate('GET /v1/tasks?projectId') / rate('bare Express GET')).toFixed(2)}x bare GET`);

  console.log(`# Webhooks: ${taskCount} task creations fanned out to 2 subscriptions`);
  const receiver = await startReceiver();
  const secret = 'whsec_bench_secret';
  const body1k = JSON.stringify({ event: 'task.created', data: { title: 'x'.repeat(900) } });
  const rawStart = Date.now();
  await runConcurrently(taskCount * 2, 50, async () => {
    const res = await request(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${createHmac('sha256', secret).update(body1k).digest('hex')}` },
      body: body1k,
    });
    await res.body.dump();
  });
  const rawPerSecond = (taskCount * 2) / ((Date.now() - rawStart) / 1000);
  console.log(JSON.stringify({ title: 'raw undici POST loop (concurrency 50)', 'req/s': Math.round(rawPerSecond) }));

  for (let i = 0; i < 2; i++) await api('POST', '/v1/webhooks', { url: receiver.url, events: ['task.created'], secret });
  const createTask = async () => {
    const res = await request(`${base}/v1/tasks`, { method: 'POST', headers: auth, body: taskBody });
    await res.body.dump();
  };
  const waitForArrivals = async (count: number) => {
    const deadline = Date.now() + 600_000;
    while (receiver.arrivals.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  };

  // Latency first, while queues and tables are fresh: creations paced well below capacity.
  const paced = Number(process.env.BENCH_PACED_PER_SECOND ?? 50);
  const inFlight: Promise<void>[] = [];
  const pacedStart = Date.now();
  for (let i = 0; i < paced * seconds; i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, pacedStart + (i * 1000) / paced - Date.now())));
    inFlight.push(createTask());
  }
  await Promise.all(inFlight);
  await waitForArrivals(paced * seconds * 2);
  const latencies = receiver.arrivals.map((a) => a.latencyMs).sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      title: `event-to-receiver latency at ${paced} tasks/s (${paced * 2} deliveries/s)`,
      delivered: latencies.length,
      'p50 ms': percentile(latencies, 50),
      'p99 ms': percentile(latencies, 99),
    }),
  );
  receiver.arrivals.length = 0;
  // Throughput: as many creations as the service takes, then until every delivery has arrived.
  const started = Date.now();
  await runConcurrently(taskCount, 50, createTask);
  const createdIn = (Date.now() - started) / 1000;
  await waitForArrivals(taskCount * 2);
  const drainedIn = (Math.max(...receiver.arrivals.map((a) => a.at)) - started) / 1000;
  const deliveriesPerSecond = receiver.arrivals.length / drainedIn;
  console.log(
    JSON.stringify({
      title: 'webhook deliveries, saturated',
      delivered: receiver.arrivals.length,
      expected: taskCount * 2,
      'tasks created/s': Math.round(taskCount / createdIn),
      'deliveries/s': Math.round(deliveriesPerSecond),
      'vs raw undici': `${(deliveriesPerSecond / rawPerSecond).toFixed(3)}x`,
    }),
  );

  receiver.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
