// Tracing's cost (docs/decisions.md#traces): the API and the worker started by the bench twice, as
// `pnpm start` runs them, on a database of their own and their own queues: traced (every trace
// sampled, exported over OTLP/HTTP in its default encoding to a receiver in the bench) and not
// traced. Measured alternately in one run, ROUNDS times (every other round in the other order), both
// sides at the same rate, well below what either serves: POST /v1/tasks under autocannon (CPU of the
// API, its Postgres backends and Redis per request), then deliveries of events that carry a sampled
// traceparent, as those of traced requests do (CPU of the worker, its Postgres backends and Redis per
// delivery). Saturated, the two sides ran at throughputs that other work on the machine moved by up
// to 3x, and CPU per request falls as throughput rises (more per event-loop turn, per batch), so a
// round compared different loads. A window starts only once both workers have dispatched every event
// of the window before, so that neither side's backlog runs beside the other's measurement. The last
// lines give every round's ratio and their median.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createRedisConnection, JobScheduler, queueLayout } from '../packages/queue/src';
import { startOtlpReceiver } from '../test/support/otlp-receiver';
import { exitCode, freePort, runEntry, waitForHttp } from '../test/support/processes';
import { createDatabase, dropDatabase } from './bench-database';
import { measure } from './http-paths';
import { outboxEvents, post } from './noisy-neighbour';
import { organization } from './organization';
import type { CpuUse } from './proc-cpu';
import type { QueueSettings } from './queue-settings';
import { startReceiver } from './receiver';
import { cpuNote, printTable, type Measured } from './table';

export interface TracingBench {
  /** The running services' database: the bench's own goes on its server. */
  databaseUrl: string;
  /** The services' Redis settings: the bench's processes use the same Redis under prefixes of their own. */
  queues: QueueSettings;
  seconds: number;
  /** Events fanned out in each delivery run (one delivery each), at most: a run lasts `seconds` at its rate. */
  events: number;
  cpu(pids: number[]): Promise<{ stop(): Promise<CpuUse> }>;
}

type Mode = 'untraced' | 'traced';

const ROUNDS = 6;
/** Requests a second to either API, and events a second to either worker: the same load for both sides. */
const REQUEST_RATE = 250;
const EVENT_RATE = 500;
/** Events are published a tenth of a second's worth at a time. */
const PUBLISH_EVERY_MS = 100;
const DRAIN_TIMEOUT_MS = 120_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The per-item CPU ratios of the traced side to the untraced, Node alone and with Postgres and Redis. */
function ratios(traced: Measured, untraced: Measured) {
  const per = (m: Measured) => ({ node: m.cpu.nodeUs / m.count, total: (m.cpu.nodeUs + m.cpu.postgresUs + m.cpu.redisUs) / m.count });
  const [t, u] = [per(traced), per(untraced)];
  return { node: t.node / u.node, total: t.total / u.total };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
};

function ratioLine(what: string, rounds: { node: number; total: number }[]): string {
  const list = (key: 'node' | 'total') => `${rounds.map((r) => `${r[key].toFixed(2)}x`).join(', ')} (median ${median(rounds.map((r) => r[key])).toFixed(2)}x)`;
  return `${what}, traced / untraced by round: Node ${list('node')}; CPU with Postgres and Redis ${list('total')}.`;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export async function benchTracing(bench: TracingBench): Promise<void> {
  const databaseUrl = createDatabase('tracing', bench.databaseUrl);
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const [otlp, receiver] = await Promise.all([startOtlpReceiver(), startReceiver()]);
  const modeEnv: Record<Mode, NodeJS.ProcessEnv> = {
    untraced: { OTEL_SDK_DISABLED: 'true' },
    traced: { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_TRACES_SAMPLER: 'always_on', OTEL_LOG_LEVEL: 'warn' },
  };
  const started = await Promise.all(
    (['untraced', 'traced'] as const).map(async (mode) => {
      const [port, healthPort] = await Promise.all([freePort(), freePort()]);
      const redisPrefix = `bench-tracing-${mode}-${Date.now().toString(36)}`;
      const env = {
        DATABASE_URL: databaseUrl,
        DATABASE_DIRECT_URL: databaseUrl,
        REDIS_PREFIX: redisPrefix,
        PORT: String(port),
        WORKER_HEALTH_PORT: String(healthPort),
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        // The two workers share the database: neither republishes the other's events.
        WORKER_SWEEP_GRACE_MS: '3600000',
        ...modeEnv[mode],
      };
      const api = runEntry('services/api/src/main.ts', [], env);
      const worker = runEntry('services/worker/src/main.ts', [], env);
      const producer = createRedisConnection(bench.queues.redis, 'worker', `bench-tracing-${mode}`);
      const jobs = new JobScheduler(producer, queueLayout({ ...bench.queues, redisPrefix }), (err) => console.error(err));
      return { mode, base: `http://127.0.0.1:${port}`, health: `http://127.0.0.1:${healthPort}`, api, worker, producer, jobs };
    }),
  );
  const setups = Object.fromEntries(started.map((setup) => [setup.mode, setup])) as Record<Mode, (typeof started)[number]>;
  try {
    await Promise.all(started.flatMap((setup) => [waitForHttp(`${setup.base}/healthz`, 90_000), waitForHttp(`${setup.health}/readyz`, 90_000)]));
    const org = await organization(databaseUrl, 'Tracing');
    // Requests write to one project; the subscription takes only the other's events, which the delivery runs write.
    const requested = await post(setups.untraced.base, org, '/v1/projects', { name: 'Requested' });
    const delivered = await post(setups.untraced.base, org, '/v1/projects', { name: 'Delivered' });
    await post(setups.untraced.base, org, '/v1/webhooks', { url: receiver.url, events: ['task.created'], projectIds: [delivered.id], maxConcurrency: 100 });
    const body = JSON.stringify({ title: 'Benchmark task', projectId: requested.id, priority: 'high', description: 'x'.repeat(200) });

    const requests = (mode: Mode, rate: { overallRate?: number } = { overallRate: REQUEST_RATE }) =>
      measure(
        mode,
        { method: 'POST', url: `${setups[mode].base}/v1/tasks`, headers: org.headers, body, ...rate },
        bench,
        [setups[mode].api.pid!],
        [setups[mode].worker.pid!],
      );
    const deliveries = async (mode: Mode, count: number): Promise<Measured> => {
      await pg.query('VACUUM ANALYZE "Task", "OutboxEvent", "Delivery", "DeliveryAttempt"');
      const eventIds = await outboxEvents(pg, org, delivered.id, count);
      await receiver.take();
      const window = await bench.cpu([setups[mode].worker.pid!]);
      const startedAt = Date.now();
      const perPublish = (EVENT_RATE * PUBLISH_EVERY_MS) / 1000;
      for (let i = 0; i * perPublish < count; i++) {
        await sleep(startedAt + i * PUBLISH_EVERY_MS - Date.now());
        const ids = eventIds.slice(i * perPublish, (i + 1) * perPublish);
        await setups[mode].jobs.publishEvents(ids.map((id) => ({ id, organizationId: org.id, traceparent: `00-${hex(16)}-${hex(8)}-01` })));
      }
      await receiver.waitFor(count);
      const seconds = (Math.max(...(await receiver.take()).map((a) => a.at)) - startedAt) / 1000;
      return { label: mode, count, seconds, cpu: await window.stop() };
    };
    /** Until both workers have dispatched every event written so far (bounded). */
    const drained = async () => {
      const deadline = Date.now() + DRAIN_TIMEOUT_MS;
      while ((await pg.query('SELECT 1 FROM "OutboxEvent" WHERE "dispatchedAt" IS NULL LIMIT 1')).rowCount! > 0) {
        if (Date.now() > deadline) throw new Error(`the workers left events undispatched for ${DRAIN_TIMEOUT_MS} ms`);
        await sleep(100);
      }
    };
    const events = Math.min(bench.events, EVENT_RATE * bench.seconds);
    // Warm-up, JIT and pools: as many requests as either API serves in a window, and a window's deliveries.
    for (const mode of ['untraced', 'traced'] as const) await requests(mode, {});
    for (const mode of ['untraced', 'traced'] as const) await deliveries(mode, events);

    const requestRatios: { node: number; total: number }[] = [];
    const deliveryRatios: { node: number; total: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const order: Mode[] = round % 2 === 1 ? ['untraced', 'traced'] : ['traced', 'untraced'];
      const posts: Partial<Record<Mode, Awaited<ReturnType<typeof requests>>>> = {};
      for (const mode of order) {
        await drained();
        posts[mode] = await requests(mode);
      }
      requestRatios.push(ratios(posts.traced!.measured, posts.untraced!.measured));
      printTable(
        `POST /v1/tasks traced and not, round ${round} (${REQUEST_RATE} requests/s over 50 connections, ${bench.seconds} s)`,
        'req',
        posts.traced!.measured,
        posts.untraced!.measured,
        [
          cpuNote(
            'Meanwhile the traced worker, dispatching the outbox events (no subscription)',
            posts.traced!.alsoCpu,
            posts.traced!.measured.count,
            'request',
          ),
          cpuNote('the untraced worker', posts.untraced!.alsoCpu, posts.untraced!.measured.count, 'request'),
        ],
        'traced / untraced',
      );
      const runs: Partial<Record<Mode, Measured>> = {};
      for (const mode of order) {
        await drained();
        runs[mode] = await deliveries(mode, events);
      }
      deliveryRatios.push(ratios(runs.traced!, runs.untraced!));
      printTable(
        `Deliveries traced and not, round ${round} (${events.toLocaleString('en-US')} events x 1 subscription, published at ${EVENT_RATE}/s)`,
        'delivery',
        runs.traced!,
        runs.untraced!,
        [],
        'traced / untraced',
      );
    }
    console.log(`\n${ratioLine('POST /v1/tasks', requestRatios)}`);
    console.log(ratioLine('Deliveries', deliveryRatios));
    const dropped = started.flatMap((setup) => [setup.api, setup.worker]).flatMap((child) => child.output().match(/Dropped \d+ spans[^\n]*/g) ?? []);
    console.log(
      `\nOTLP export requests received: ${otlp.requests()}; spans dropped by the traced services: ${dropped.length === 0 ? 'none' : dropped.join('; ')}.`,
    );
  } finally {
    for (const setup of started) {
      setup.api.kill('SIGTERM');
      setup.worker.kill('SIGTERM');
    }
    await Promise.all(started.flatMap((setup) => [exitCode(setup.api), exitCode(setup.worker)]));
    await Promise.all(started.map((setup) => setup.jobs.close()));
    for (const setup of started) setup.producer.disconnect();
    await Promise.all([otlp.close(), receiver.close()]);
    await pg.end();
    await dropDatabase(databaseUrl);
  }
}
