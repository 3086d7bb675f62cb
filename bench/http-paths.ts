// POST /v1/tasks and GET /v1/tasks?projectId= against bare Express + `pg` doing the same SQL work.
import autocannon from 'autocannon';
import { startChild } from './children';
import type { CpuUse } from './proc-cpu';
import { cpuNote, printTable, type Measured } from './table';

export interface HttpBench {
  /** worktrack's base URL. */
  base: string;
  /** The database the service uses (its setting or default), which the baseline uses too. */
  databaseUrl: string;
  headers: Record<string, string>;
  seconds: number;
  apiPid: number;
  workerPid: number;
  /** The tenant the baseline writes as. */
  organizationId: string;
  userId: string;
  /** Opens a CPU window over these Node processes and their Postgres backends. */
  cpu(pids: number[]): Promise<{ stop(): Promise<CpuUse> }>;
  /** Refreshes the planner's statistics (autovacuum is off on the development machines). */
  analyze(): Promise<void>;
}

const CONNECTIONS = 50;
const BASELINE_PORT = 3998;

async function load(options: autocannon.Options) {
  const result = await autocannon({ connections: CONNECTIONS, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${options.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

export async function measure(label: string, options: autocannon.Options, bench: Pick<HttpBench, 'seconds' | 'cpu'>, pids: number[], alsoPids: number[] = []) {
  await load({ ...options, duration: Math.min(3, bench.seconds) }); // warm-up: JIT, pools, caches
  const [window, also] = await Promise.all([bench.cpu(pids), bench.cpu(alsoPids)]);
  const result = await load({ ...options, duration: bench.seconds });
  const [cpu, alsoCpu] = await Promise.all([window.stop(), also.stop()]);
  const measured: Measured = { label, count: result.requests.total, seconds: result.duration, p50Ms: result.latency.p50, p99Ms: result.latency.p99, cpu };
  return { measured, alsoCpu };
}

/** Each path is measured when given. */
export async function benchHttpPaths(bench: HttpBench, paths: { post: string | false; listProjectId: string | false }): Promise<void> {
  const baseline = await startChild('baseline-api.ts', {
    PORT: String(BASELINE_PORT),
    BENCH_ORG_ID: bench.organizationId,
    BENCH_USER_ID: bench.userId,
    DATABASE_URL: bench.databaseUrl,
  });
  const bare = `http://127.0.0.1:${BASELINE_PORT}`;
  const json = { 'content-type': 'application/json' };
  try {
    if (paths.post) {
      const post = { method: 'POST' as const, body: paths.post };
      const bareCreate = await measure('bare Express + pg', { ...post, url: `${bare}/tasks`, headers: json }, bench, [baseline.pid]);
      const create = await measure('worktrack', { ...post, url: `${bench.base}/v1/tasks`, headers: bench.headers }, bench, [bench.apiPid], [bench.workerPid]);
      printTable(`POST /v1/tasks (${CONNECTIONS} connections, ${bench.seconds} s)`, 'req', create.measured, bareCreate.measured, [
        cpuNote('Meanwhile the worker, dispatching the outbox events (no subscriptions)', create.alsoCpu, create.measured.count, 'request'),
      ]);
    }
    if (paths.listProjectId) {
      await bench.analyze();
      const list = `?projectId=${paths.listProjectId}`;
      const bareList = await measure('bare Express + pg', { url: `${bare}/tasks${list}` }, bench, [baseline.pid]);
      const worktrackList = await measure('worktrack', { url: `${bench.base}/v1/tasks${list}&limit=50`, headers: bench.headers }, bench, [bench.apiPid]);
      printTable(
        `GET /v1/tasks?projectId= (page of 50 + exact total of 1,000; ${CONNECTIONS} connections, ${bench.seconds} s)`,
        'req',
        worktrackList.measured,
        bareList.measured,
      );
    }
  } finally {
    await baseline.stop();
  }
}
