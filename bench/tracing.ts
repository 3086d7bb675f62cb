// Tracing's cost (docs/decisions.md#traces): the API and the worker started by the bench twice, as
// `pnpm start` runs them, on a database of their own and their own queues: traced (every trace
// sampled, exported over OTLP/HTTP in its default encoding to a receiver in the bench) and not
// traced. Measured alternately in one run, twice (the second round in the other order): POST
// /v1/tasks under autocannon (CPU of the API, its Postgres backends and Redis per request), then
// saturated deliveries of events that carry a sampled traceparent, as those of traced requests do
// (CPU of the worker, its Postgres backends and Redis per delivery).
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
  /** Events fanned out in each saturated run (one delivery each). */
  events: number;
  cpu(pids: number[]): Promise<{ stop(): Promise<CpuUse> }>;
}

type Mode = 'untraced' | 'traced';

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
    // Requests write to one project; the subscription takes only the other's events, which the saturated runs write.
    const requested = await post(setups.untraced.base, org, '/v1/projects', { name: 'Requested' });
    const delivered = await post(setups.untraced.base, org, '/v1/projects', { name: 'Delivered' });
    await post(setups.untraced.base, org, '/v1/webhooks', { url: receiver.url, events: ['task.created'], projectIds: [delivered.id], maxConcurrency: 100 });
    const body = JSON.stringify({ title: 'Benchmark task', projectId: requested.id, priority: 'high', description: 'x'.repeat(200) });

    const requests = (mode: Mode) =>
      measure(
        mode,
        { method: 'POST', url: `${setups[mode].base}/v1/tasks`, headers: org.headers, body },
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
      await setups[mode].jobs.publishEvents(eventIds.map((id) => ({ id, organizationId: org.id, traceparent: `00-${hex(16)}-${hex(8)}-01` })));
      await receiver.waitFor(count);
      const seconds = (Math.max(...(await receiver.take()).map((a) => a.at)) - startedAt) / 1000;
      return { label: mode, count, seconds, cpu: await window.stop() };
    };
    for (const mode of ['untraced', 'traced'] as const) await deliveries(mode, Math.ceil(bench.events / 10)); // warm-up: JIT, pools

    for (const round of [1, 2]) {
      const order: Mode[] = round === 1 ? ['untraced', 'traced'] : ['traced', 'untraced'];
      const posts: Partial<Record<Mode, Awaited<ReturnType<typeof requests>>>> = {};
      for (const mode of order) posts[mode] = await requests(mode);
      printTable(
        `POST /v1/tasks traced and not, round ${round} (50 connections, ${bench.seconds} s)`,
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
      const saturated: Partial<Record<Mode, Measured>> = {};
      for (const mode of order) saturated[mode] = await deliveries(mode, bench.events);
      printTable(
        `Saturated deliveries traced and not, round ${round} (${bench.events.toLocaleString('en-US')} events x 1 subscription)`,
        'delivery',
        saturated.traced!,
        saturated.untraced!,
        [],
        'traced / untraced',
      );
    }
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
