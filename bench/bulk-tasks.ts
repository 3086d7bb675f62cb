// POST /v1/tasks/bulk: the CPU per task of creates sent 100 to a bulk request against the same
// creates sent one per POST /v1/tasks, in alternating windows of one run (the order swapped each
// round, so a drift of the machine weighs on both alike).
import { request } from 'undici';
import type { CpuUse } from './proc-cpu';
import { cpuNote, printTable, type Measured } from './table';

export interface BulkBench {
  base: string;
  headers: Record<string, string>;
  /** A single create's body; a bulk item's `data`. */
  task: object;
  apiPid: number;
  workerPid: number;
  /** Opens a CPU window over these Node processes and their Postgres backends. */
  cpu(pids: number[]): Promise<{ stop(): Promise<CpuUse> }>;
  rounds: number;
}

/** Items per bulk request: the most it takes. */
const ITEMS = 100;
/** Bulk requests per window: enough CPU in a window to span many of /proc's 10 ms ticks. */
const BULKS_PER_WINDOW = 10;
/** The decisions' bound: a bulk's CPU per task at most this share of a single create's. */
const BOUND = 1 / 5;

async function post(url: string, headers: Record<string, string>, body: object): Promise<void> {
  const res = await request(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${text}`);
}

const cpuOf = (cpu: CpuUse) => cpu.nodeUs + cpu.postgresUs;
const add = (a: CpuUse, b: CpuUse): CpuUse => ({ nodeUs: a.nodeUs + b.nodeUs, postgresUs: a.postgresUs + b.postgresUs, redisUs: a.redisUs + b.redisUs });
const none: CpuUse = { nodeUs: 0, postgresUs: 0, redisUs: 0 };

export async function benchBulkTasks(bench: BulkBench): Promise<void> {
  const tasks = ITEMS * BULKS_PER_WINDOW;
  const bulkBody = { operations: Array.from({ length: ITEMS }, () => ({ op: 'create', data: bench.task })) };
  const ways = {
    single: async () => {
      for (let i = 0; i < tasks; i += 1) await post(`${bench.base}/v1/tasks`, bench.headers, bench.task);
    },
    bulk: async () => {
      for (let i = 0; i < BULKS_PER_WINDOW; i += 1) await post(`${bench.base}/v1/tasks/bulk`, bench.headers, bulkBody);
    },
  };
  type Way = keyof typeof ways;
  const total = { single: { cpu: none, worker: none, seconds: 0 }, bulk: { cpu: none, worker: none, seconds: 0 } };
  const ratios: number[] = [];
  const window = async (way: Way) => {
    const [api, worker] = await Promise.all([bench.cpu([bench.apiPid]), bench.cpu([bench.workerPid])]);
    const started = process.hrtime.bigint();
    await ways[way]();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const [cpu, workerCpu] = await Promise.all([api.stop(), worker.stop()]);
    total[way] = { cpu: add(total[way].cpu, cpu), worker: add(total[way].worker, workerCpu), seconds: total[way].seconds + seconds };
    return cpu;
  };

  await ways.single(); // warm-up: JIT, pools, caches
  await ways.bulk();
  for (let round = 0; round < bench.rounds; round += 1) {
    const order: Way[] = round % 2 === 0 ? ['single', 'bulk'] : ['bulk', 'single'];
    const cpu: Partial<Record<Way, CpuUse>> = {};
    for (const way of order) cpu[way] = await window(way);
    ratios.push(cpuOf(cpu.bulk!) / cpuOf(cpu.single!));
  }

  const count = tasks * bench.rounds;
  const measured = (way: Way, label: string): Measured => ({ label, count, seconds: total[way].seconds, cpu: total[way].cpu });
  const ratio = cpuOf(total.bulk.cpu) / cpuOf(total.single.cpu);
  const sorted = [...ratios].sort((a, b) => a - b);
  const fixed = (n: number) => n.toFixed(3);
  printTable(
    `POST /v1/tasks/bulk: ${ITEMS} creates per request against single POST /v1/tasks (${bench.rounds} rounds of ${tasks} tasks each way, one request at a time)`,
    'task',
    measured('bulk', `bulk of ${ITEMS}`),
    measured('single', 'single POST'),
    [
      `API + Postgres CPU per task, bulk / single: ${fixed(ratio)} (bound ${fixed(BOUND)}: ${ratio <= BOUND ? 'within' : 'OVER'}); per round median ${fixed(sorted[sorted.length >> 1]!)}, range ${fixed(sorted[0]!)}-${fixed(sorted[sorted.length - 1]!)}.`,
      cpuNote('Meanwhile the worker, dispatching the outbox events, bulk', total.bulk.worker, count, 'task'),
      cpuNote('Meanwhile the worker, dispatching the outbox events, single', total.single.worker, count, 'task'),
    ],
    'bulk / single',
  );
}
