// `pnpm build && pnpm bench:memory`: the API's resident memory after a warm-up against bare Express 5
// + `pg` (bench/baseline-api.ts, pool of 10) in the same run, as acceptance measures it: the bundle
// (dist/api.js) with LOG_LEVEL=warn and S3_ENDPOINT set (no embedded store; nothing listens there),
// the baseline bundled likewise and run by plain Node, both on a database of the bench's own.
// The same warm-up on both, sequential over curl without keep-alive: 200 task lists of 50, then 200
// creates; then 5 s idle; VmRSS from /proc/<pid>/status, and the CPU each spent per request.
// The API twice, each process fresh: once serving the warm-up alone (the project and subscription
// made through another API process), once after the project was created through it, a route through
// Prisma, whose client and query compiler the warm-up's routes never load.
// Likewise the worker (dist/worker.js) once it has delivered the creates' events to a receiver,
// against a bare BullMQ worker (bench/baseline-deliveries.ts) delivering as many jobs to the same one.
import { execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { build } from 'esbuild';
import { loadWorkerConfig } from '@worktrack/config';
import { createRedisConnection, queueLayout } from '../packages/queue/src';
import { exitCode, freePort, repoRoot, spawnLogged, waitForHttp } from '../test/support/processes';
import { createDatabase, dropDatabase } from './bench-database';
import { organization } from './organization';
import { cpuMicros } from './proc-cpu';
import { startReceiver } from './receiver';
import { runToExit } from './run-to-exit';
import { obliterateServiceQueues } from './service-queues';

const WARM_UP = 200;
const IDLE_MS = 5_000;
const curl = promisify(execFile);

function rssKiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]);
}

async function request(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string): Promise<string> {
  const args = ['-sS', '--fail-with-body', '-X', method, ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`])];
  const { stdout } = await curl('curl', [...args, ...(body === undefined ? [] : ['--data', body]), url]);
  return stdout;
}

const idle = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS));

interface Warmed {
  label: string;
  rssKiB: number;
  cpuUsPerRequest: number;
}

async function warmUp(label: string, pid: number, list: string, create: string, headers: Record<string, string>, body: string): Promise<Warmed> {
  const cpuBefore = cpuMicros(pid);
  for (let i = 0; i < WARM_UP; i++) await request('GET', list, headers);
  for (let i = 0; i < WARM_UP; i++) await request('POST', create, headers, body);
  const cpuUsPerRequest = (cpuMicros(pid) - cpuBefore) / (2 * WARM_UP);
  await idle();
  return { label, rssKiB: rssKiB(pid), cpuUsPerRequest };
}

/** The measured rows, then the baseline's, then each row's ratio to the baseline. */
function printTable(title: string, unit: string, measured: Warmed[], baseline: Warmed): void {
  console.log(`\n### ${title}\n`);
  console.log(`| | RSS MiB | CPU µs/${unit} |`);
  console.log('|---|---:|---:|');
  for (const m of [...measured, baseline])
    console.log(`| ${m.label} | ${(m.rssKiB / 1024).toFixed(1)} | ${Math.round(m.cpuUsPerRequest).toLocaleString('en-US')} |`);
  for (const m of measured)
    console.log(`| ${m.label} / baseline | ${(m.rssKiB / baseline.rssKiB).toFixed(2)}x | ${(m.cpuUsPerRequest / baseline.cpuUsPerRequest).toFixed(2)}x |`);
}

/** Bundles a bench/ baseline as `pnpm build` bundles the services, and forks it with plain Node; resolves once it is ready. */
async function startBundled(script: string, dir: string, env: NodeJS.ProcessEnv): Promise<ReturnType<typeof fork>> {
  const bundle = path.join(dir, script.replace(/\.ts$/, '.js'));
  await build({
    entryPoints: [path.join(__dirname, script)],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node24',
    external: ['pg-native'],
    logLevel: 'error',
  });
  const child = fork(bundle, [], { execArgv: [], env: { ...process.env, ...env } });
  await Promise.race([once(child, 'message'), once(child, 'exit').then(() => Promise.reject(new Error(`${script} exited at start`)))]);
  return child;
}

async function main() {
  const databaseUrl = createDatabase('memory');
  const [port, healthPort, basePort] = await Promise.all([freePort(), freePort(), freePort()]);
  const prefix = `bench-memory-${Date.now().toString(36)}`;
  const env = {
    ...process.env,
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    DATABASE_DIRECT_URL: databaseUrl,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    WORKER_HEALTH_PORT: String(healthPort),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
    S3_ACCESS_KEY_ID: 'bench',
    S3_SECRET_ACCESS_KEY: 'bench-secret',
  };
  const startService = (service: 'api' | 'worker') => spawnLogged(['node', path.join(repoRoot, 'dist', `${service}.js`)], { cwd: repoRoot, env });
  const apis = [startService('api')];
  const worker = startService('worker');
  const baselines: ReturnType<typeof fork>[] = [];
  const bundleDir = mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'));
  const receiver = await startReceiver();
  const services = loadWorkerConfig(env);
  const queueConnection = createRedisConnection(services.redis, 'worker', 'bench-memory');
  const baselineQueue = new Queue('{bench-memory-deliveries}', { connection: queueConnection, prefix });
  try {
    const base = `http://127.0.0.1:${port}`;
    await Promise.all([waitForHttp(`${base}/healthz`, 60_000), waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, 60_000)]);
    const org = await organization(databaseUrl, 'Memory');
    const project = JSON.parse(await request('POST', `${base}/v1/projects`, org.headers, JSON.stringify({ name: 'Memory' }))) as { id: string };
    await request('POST', `${base}/v1/webhooks`, org.headers, JSON.stringify({ url: receiver.url, events: ['task.created'] }));
    const body = JSON.stringify({ title: 'Benchmark task', projectId: project.id, priority: 'high', description: 'x'.repeat(200) });
    /** A fresh API process on the same port, once the one before it has stopped. */
    const freshApi = async () => {
      const previous = apis.at(-1)!;
      previous.kill('SIGTERM');
      await exitCode(previous);
      const api = startService('api');
      apis.push(api);
      await waitForHttp(`${base}/healthz`, 60_000);
      return api;
    };
    const bareApi = await startBundled('baseline-api.ts', bundleDir, {
      DATABASE_URL: databaseUrl,
      PORT: String(basePort),
      BENCH_ORG_ID: org.id,
      BENCH_USER_ID: org.userId,
    });
    baselines.push(bareApi);

    const bare = `http://127.0.0.1:${basePort}`;
    const workerCpuBefore = cpuMicros(worker.pid!);
    /** The warm-up against a fresh API process, after `before` (what that process serves first). */
    const warmUpFreshApi = async (label: string, before: () => Promise<unknown> = async () => undefined) => {
      const api = await freshApi();
      await before();
      return warmUp(label, api.pid!, `${base}/v1/tasks?limit=50`, `${base}/v1/tasks`, org.headers, body);
    };
    const servingWarmUp = await warmUpFreshApi('worktrack API (dist/api.js), the warm-up alone');
    const servingPrisma = await warmUpFreshApi('the same, a project created through it first', () =>
      request('POST', `${base}/v1/projects`, org.headers, JSON.stringify({ name: 'Through Prisma' })),
    );
    printTable(
      `The API: RSS after ${WARM_UP} lists of 50 + ${WARM_UP} creates and ${IDLE_MS / 1000} s idle`,
      'request',
      [servingWarmUp, servingPrisma],
      await warmUp('bare Express 5 + pg', bareApi.pid!, `${bare}/tasks?projectId=${project.id}`, `${bare}/tasks`, { 'content-type': 'application/json' }, body),
    );

    // The creates' events, delivered by the worker meanwhile.
    await receiver.waitFor(2 * WARM_UP, 60_000);
    const deliveries = (await receiver.take()).length;
    const workerCpu = (cpuMicros(worker.pid!) - workerCpuBefore) / deliveries;
    await idle();
    const worktrackWorker = { label: 'worktrack worker (dist/worker.js)', rssKiB: rssKiB(worker.pid!), cpuUsPerRequest: workerCpu };
    const bareWorker = await startBundled('baseline-deliveries.ts', bundleDir, {
      REDIS_PREFIX: prefix,
      BENCH_QUEUE: '{bench-memory-deliveries}',
      BENCH_PREFIX: prefix,
      BENCH_RECEIVER: receiver.url,
      BENCH_SECRET: 'bench-secret',
    });
    baselines.push(bareWorker);
    const bareCpuBefore = cpuMicros(bareWorker.pid!);
    await baselineQueue.addBulk(Array.from({ length: deliveries }, () => ({ name: 'deliver', data: { body } })));
    await receiver.waitFor(deliveries, 60_000);
    const bareCpu = (cpuMicros(bareWorker.pid!) - bareCpuBefore) / deliveries;
    await idle();
    printTable(`The worker: RSS after delivering ${deliveries} events and ${IDLE_MS / 1000} s idle`, 'delivery', [worktrackWorker], {
      label: 'bare BullMQ worker + undici',
      rssKiB: rssKiB(bareWorker.pid!),
      cpuUsPerRequest: bareCpu,
    });
  } catch (err) {
    console.error(apis.at(-1)!.output(), worker.output());
    throw err;
  } finally {
    for (const child of [...apis, worker, ...baselines]) child.kill('SIGTERM');
    await Promise.all([...apis, worker, ...baselines].map((child) => exitCode(child)));
    await baselineQueue.obliterate({ force: true });
    await obliterateServiceQueues(queueConnection, queueLayout(services));
    await baselineQueue.close();
    queueConnection.disconnect();
    await receiver.close();
    rmSync(bundleDir, { recursive: true, force: true });
    await dropDatabase(databaseUrl);
  }
}

runToExit(main);
