// `pnpm build && pnpm bench:memory`: the API's resident memory after a warm-up against bare Express 5
// + `pg` (bench/baseline-api.ts, pool of 10) in the same run, as acceptance measures it: the bundle
// (dist/api.js) with LOG_LEVEL=warn and S3_ENDPOINT set (no embedded store; nothing listens there),
// the baseline bundled likewise and run by plain Node, both on a database of the bench's own.
// The same warm-up on both, sequential over curl without keep-alive: 200 task lists of 50, then 200
// creates; then 5 s idle; VmRSS from /proc/<pid>/status, and the CPU each spent per request.
import { execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { exitCode, freePort, repoRoot, spawnLogged, waitForHttp } from '../test/support/processes';
import { createDatabase, dropDatabase } from './bench-database';
import { organization } from './organization';
import { cpuMicros } from './proc-cpu';
import { runToExit } from './run-to-exit';

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
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  return { label, rssKiB: rssKiB(pid), cpuUsPerRequest };
}

async function main() {
  const databaseUrl = createDatabase('memory');
  const [port, basePort] = await Promise.all([freePort(), freePort()]);
  const api = spawnLogged(['node', path.join(repoRoot, 'dist', 'api.js')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      DATABASE_DIRECT_URL: databaseUrl,
      REDIS_PREFIX: `bench-memory-${Date.now().toString(36)}`,
      PORT: String(port),
      S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      S3_ACCESS_KEY_ID: 'bench',
      S3_SECRET_ACCESS_KEY: 'bench-secret',
    },
  });
  let baseline: ReturnType<typeof fork> | undefined;
  const bundleDir = mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'));
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/healthz`, 60_000);
    const org = await organization(databaseUrl, 'Memory');
    const project = JSON.parse(await request('POST', `${base}/v1/projects`, org.headers, JSON.stringify({ name: 'Memory' }))) as { id: string };
    const body = JSON.stringify({ title: 'Benchmark task', projectId: project.id, priority: 'high', description: 'x'.repeat(200) });
    const bundle = path.join(bundleDir, 'baseline-api.js');
    await build({
      entryPoints: [path.join(__dirname, 'baseline-api.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      target: 'node24',
      external: ['pg-native'],
      logLevel: 'warning',
    });
    baseline = fork(bundle, [], {
      execArgv: [],
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(basePort), BENCH_ORG_ID: org.id, BENCH_USER_ID: org.userId },
    });
    await Promise.race([once(baseline, 'message'), once(baseline, 'exit').then(() => Promise.reject(new Error('the baseline exited at start')))]);

    const bare = `http://127.0.0.1:${basePort}`;
    const json = { 'content-type': 'application/json' };
    const measured = [
      await warmUp('worktrack API (dist/api.js)', api.pid!, `${base}/v1/tasks?limit=50`, `${base}/v1/tasks`, org.headers, body),
      await warmUp('bare Express 5 + pg', baseline.pid!, `${bare}/tasks?projectId=${project.id}`, `${bare}/tasks`, json, body),
    ];
    const [worktrack, bareline] = measured as [Warmed, Warmed];
    console.log(`\n### RSS after ${WARM_UP} lists of 50 + ${WARM_UP} creates and ${IDLE_MS / 1000} s idle\n`);
    console.log('| | RSS MiB | CPU µs/request |');
    console.log('|---|---:|---:|');
    for (const m of measured) console.log(`| ${m.label} | ${(m.rssKiB / 1024).toFixed(1)} | ${Math.round(m.cpuUsPerRequest).toLocaleString('en-US')} |`);
    console.log(
      `| worktrack / baseline | ${(worktrack.rssKiB / bareline.rssKiB).toFixed(2)}x | ${(worktrack.cpuUsPerRequest / bareline.cpuUsPerRequest).toFixed(2)}x |`,
    );
  } catch (err) {
    console.error(api.output());
    throw err;
  } finally {
    api.kill('SIGTERM');
    baseline?.kill('SIGTERM');
    await Promise.all([exitCode(api), baseline && exitCode(baseline)]);
    rmSync(bundleDir, { recursive: true, force: true });
    await dropDatabase(databaseUrl);
  }
}

runToExit(main);
