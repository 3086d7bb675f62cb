/**
 * Micro-benchmark: WebhookDeliverer.deliver against a raw undici.request POST loop,
 * same receiver, same payload, same concurrency, in one run.
 *
 *   npx tsx packages/webhooks/bench/deliver-bench.ts [--seconds 5] [--concurrency 50]
 *
 * The receiver runs in a child process so it does not share the event loop with the
 * client under test. The two clients alternate (A B B A, half the time each) so that
 * drift over the run affects both alike.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { buildDeliveryHeaders } from '../src/index';
import { WebhookDeliverer } from '../src/deliver';

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

interface Sample {
  completed: number;
  failed: number;
  seconds: number;
  latencies: number[];
}

/** `concurrency` loops calling `call` until the deadline; counts completions and latencies. */
async function run(durationMs: number, call: () => Promise<boolean>): Promise<Sample> {
  const started = performance.now();
  const deadline = started + durationMs;
  const latencies: number[] = [];
  let failed = 0;
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
  return { completed: latencies.length, failed, seconds: (performance.now() - started) / 1000, latencies };
}

function merge(samples: Sample[]): Sample {
  return {
    completed: samples.reduce((sum, sample) => sum + sample.completed, 0),
    failed: samples.reduce((sum, sample) => sum + sample.failed, 0),
    seconds: samples.reduce((sum, sample) => sum + sample.seconds, 0),
    latencies: samples.flatMap((sample) => sample.latencies).sort((a, b) => a - b),
  };
}

function perSecond(sample: Sample): number {
  return sample.completed / sample.seconds;
}

function describe(name: string, sample: Sample): string {
  const at = (q: number): number => sample.latencies[Math.min(sample.latencies.length - 1, Math.floor(q * sample.latencies.length))] ?? 0;
  return (
    `${name.padEnd(26)} ${perSecond(sample).toFixed(0).padStart(7)} deliveries/s` +
    `  (${sample.completed} in ${sample.seconds.toFixed(1)} s, ${sample.failed} failed,` +
    ` p50 ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms)`
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

  try {
    console.log(`node ${process.version}, concurrency ${concurrency}, ${seconds} s per client, body ${body.length} B`);
    await run(1_000, viaDeliverer); // warm-up: connections, JIT
    await run(1_000, viaRawUndici);

    // Alternate A B B A in two halves so drift (JIT, CPU frequency, GC) hits both alike.
    const half = (seconds * 1000) / 2;
    const first = await run(half, viaDeliverer);
    const second = await run(half, viaRawUndici);
    const third = await run(half, viaRawUndici);
    const fourth = await run(half, viaDeliverer);
    const delivered = merge([first, fourth]);
    const raw = merge([second, third]);
    console.log(describe('WebhookDeliverer.deliver', delivered));
    console.log(describe('raw undici.request', raw));
    console.log(`ratio deliver / raw: ${(perSecond(delivered) / perSecond(raw)).toFixed(3)}`);

    const signings = 20_000;
    const t0 = performance.now();
    for (let i = 0; i < signings; i += 1) {
      buildDeliveryHeaders({ secret: 'bench-secret', deliveryId: `dlv_${i}`, eventType: 'task.created', body });
    }
    const signingSeconds = (performance.now() - t0) / 1000;
    console.log(`buildDeliveryHeaders alone: ${(signings / signingSeconds).toFixed(0)} signings/s (one CPU)`);
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
