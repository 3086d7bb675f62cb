/**
 * Micro-benchmark: WebhookDeliverer.deliver against a raw undici.request POST loop,
 * same receiver, same payload, same concurrency, in one run.
 *
 *   npx tsx packages/webhooks/bench/deliver-bench.ts [--seconds 5] [--concurrency 50]
 *
 * The receiver runs in a child process so it does not share the event loop with the
 * client under test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { buildDeliveryHeaders, WebhookDeliverer } from '../src/index';

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

const seconds = argument('seconds', 5);
const concurrency = argument('concurrency', 50);

const receiverScript = `
  const { createServer } = require('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"received":true}'));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startReceiver(): Promise<{ origin: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', receiverScript], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { origin: `http://127.0.0.1:${chunk.toString().trim()}`, child };
}

interface RunResult {
  completed: number;
  failed: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** `concurrency` loops calling `once` until the deadline; counts completions and latencies. */
async function run(durationMs: number, call: () => Promise<boolean>): Promise<RunResult> {
  const deadline = performance.now() + durationMs;
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const ok = await call();
        latencies.push(performance.now() - t0);
        if (!ok) failed += 1;
      }
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    completed: latencies.length,
    failed,
    perSecond: latencies.length / elapsedSeconds,
    p50: at(0.5),
    p99: at(0.99),
  };
}

function describe(name: string, result: RunResult): string {
  return (
    `${name.padEnd(28)} ${result.perSecond.toFixed(0).padStart(7)} req/s` +
    `  (${result.completed} in ${seconds}s, ${result.failed} failed, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms)`
  );
}

async function main(): Promise<void> {
  const { origin, child } = await startReceiver();
  const url = `${origin}/webhooks`;
  const body = JSON.stringify({
    event: 'task.created',
    timestamp: new Date().toISOString(),
    webhookId: 'whk_bench',
    deliveryId: 'dlv_bench',
    data: { id: 'tsk_bench', title: 'Benchmark task', status: 'todo', priority: 'medium', projectId: 'prj_bench' },
    organization: { id: 'org_bench', name: 'Bench' },
  });
  const headers = buildDeliveryHeaders({ secret: 'bench-secret', deliveryId: 'dlv_bench', eventType: 'task.created', body });

  const deliverer = new WebhookDeliverer({ timeoutMs: 5_000, allowedHosts: ['127.0.0.1'] });
  const agent = new Agent({ allowH2: false });

  const viaDeliverer = async (): Promise<boolean> => (await deliverer.deliver({ url, body, headers })).ok;
  const viaRawUndici = async (): Promise<boolean> => {
    try {
      const response = await request(url, { dispatcher: agent, method: 'POST', headers, body });
      await response.body.text();
      return response.statusCode >= 200 && response.statusCode < 300;
    } catch {
      return false;
    }
  };
  const signAndDeliver = async (): Promise<boolean> => {
    const signed = buildDeliveryHeaders({ secret: 'bench-secret', deliveryId: 'dlv_bench', eventType: 'task.created', body });
    return (await deliverer.deliver({ url, body, headers: signed })).ok;
  };

  try {
    console.log(`node ${process.version}, concurrency ${concurrency}, ${seconds}s per run, body ${body.length} B`);
    await run(1_000, viaDeliverer); // warm-up: connections, JIT
    await run(1_000, viaRawUndici);

    const durationMs = seconds * 1000;
    const deliverer1 = await run(durationMs, viaDeliverer);
    console.log(describe('WebhookDeliverer.deliver', deliverer1));
    const raw = await run(durationMs, viaRawUndici);
    console.log(describe('raw undici.request', raw));
    const signed = await run(durationMs, signAndDeliver);
    console.log(describe('buildDeliveryHeaders+deliver', signed));

    console.log(`ratio deliver / raw: ${(deliverer1.perSecond / raw.perSecond).toFixed(3)}`);
  } finally {
    await deliverer.close();
    await agent.close();
    child.kill();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
