import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { apiEnvSchema, SHUTDOWN_DEADLINE_MS, workerEnvSchema } from '@worktrack/config';
import { dbSystem, startOtlpReceiver } from '@test-support/otlp-receiver';
import { exitCode, freePort, repoRoot, spawnLogged, waitForHttp } from '@test-support/processes';
import { startReceiver } from '@test-support/receiver';
import { runBundleDir } from '@test-support/run-bundle';
import { call } from '@test-support/shipped-services';
import { waitFor } from '@test-support/wait-for';

/**
 * No Docker engine runs on these machines, so docker-compose.yml and infra/Dockerfile are read
 * against the code instead: the settings they pass exist, the images are pinned, and the files
 * the final image holds run on their own.
 */
interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8')) as { services: Record<string, ComposeService> };
const services = compose.services;
const dockerfile = readFileSync(path.join(repoRoot, 'infra/Dockerfile'), 'utf8');
const settings = new Set([apiEnvSchema, workerEnvSchema].flatMap((schema) => Object.keys(schema.describe().keys)));
const defaultOf = (schema: typeof apiEnvSchema | typeof workerEnvSchema, key: string) =>
  (schema.extract(key).describe().flags as { default?: unknown } | undefined)?.default;
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1] ?? NaN);

describe('docker-compose.yml', () => {
  it('pins every image by tag, and takes MinIO from its own registry', () => {
    for (const [name, service] of Object.entries(services)) {
      const image = service.image;
      if (image === undefined) continue;
      expect({ name, tagged: /:[^/]+$/.test(image) && !image.endsWith(':latest') }).toEqual({ name, tagged: true });
      if (image.includes('minio')) expect(image).toMatch(/^quay\.io\/minio\//);
    }
  });

  it('passes only settings that the services read', () => {
    for (const service of Object.values(services)) {
      if (!service.build) continue;
      for (const variable of Object.keys(service.environment ?? {})) expect({ variable, known: settings.has(variable) }).toEqual({ variable, known: true });
    }
  });

  it('gives the API and the worker longer to stop than their drain deadline', () => {
    for (const name of ['api', 'worker']) expect(seconds(services[name]!.stop_grace_period ?? '0s') * 1000).toBeGreaterThan(SHUTDOWN_DEADLINE_MS);
  });

  it('publishes and health-checks the ports the services listen on', () => {
    const api = services.api!;
    const port = defaultOf(apiEnvSchema, 'PORT');
    expect(api.ports).toEqual([`${port}:${port}`]);
    expect(api.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${port}/readyz`);
    const healthPort = defaultOf(workerEnvSchema, 'WORKER_HEALTH_PORT');
    expect(services.worker!.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${healthPort}/readyz`);
  });
});

describe('the documented settings', () => {
  it('lists every setting the services read in .env.example and in the README', () => {
    const example = readFileSync(path.join(repoRoot, '.env.example'), 'utf8');
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    for (const setting of settings) {
      expect({ setting, inEnvExample: new RegExp(`^#? ?${setting}=`, 'm').test(example) }).toEqual({ setting, inEnvExample: true });
      expect({ setting, inReadme: readme.includes(`\`${setting}\``) }).toEqual({ setting, inReadme: true });
    }
  });
});

describe('the production image', () => {
  /**
   * What the Dockerfile's final stage copies from the build stage, laid out as it would be: its
   * `dist` is what `pnpm build` makes, which the run has built already (test/support/run-bundle.ts).
   */
  let image: string;

  beforeAll(() => {
    image = mkdtempSync(path.join(tmpdir(), 'wt-image-'));
    for (const [, source] of dockerfile.matchAll(/^COPY --from=build \/src\/(\S+)/gm))
      cpSync(source === 'dist' ? runBundleDir() : path.join(repoRoot, source!), path.join(image, source!), { recursive: true });
  });
  afterAll(() => image && rmSync(image, { recursive: true, force: true }));

  it('keeps the build context free of secrets and dependencies', () => {
    const ignored = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['.env', '**/node_modules', '.git']));
  });

  it('migrates, bootstraps, serves and traces from the bundles, with only the instrumented and first-use packages beside them', async () => {
    const env = { ...process.env, PRISMA_SCHEMA_ENGINE_WASM: path.join(image, 'dist/schema_engine_bg.wasm'), NODE_PATH: '' };
    const command = (service: string) => services[service]!.command!;
    expect(command('migrate')[0]).toBe('node');

    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `${url.pathname}_image`;
    const databaseEnv = { ...env, DATABASE_URL: url.toString() };
    const migrate = execFileSync(process.execPath, command('migrate').slice(1), { cwd: image, env: databaseEnv, encoding: 'utf8' });
    expect(migrate).toContain(`Migrating database "${url.pathname.slice(1)}"`);

    const bootstrap = execFileSync(process.execPath, ['dist/cli.js', 'bootstrap', '--org', `Image ${Date.now()}`, '--email', 'ops@example.com', '--json'], {
      cwd: image,
      env: databaseEnv,
      encoding: 'utf8',
    });
    const { liveKey } = JSON.parse(bootstrap) as { liveKey: string };

    const [port, healthPort] = await Promise.all([freePort(), freePort()]);
    const [otlp, receiver] = await Promise.all([startOtlpReceiver(), startReceiver()]);
    const serviceEnv = {
      ...databaseEnv,
      PORT: String(port),
      WORKER_HEALTH_PORT: String(healthPort),
      REDIS_PREFIX: `wt-test-image-${Date.now()}`,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    const api = spawnLogged(command('api'), { cwd: image, env: serviceEnv });
    const worker = spawnLogged(command('worker'), { cwd: image, env: serviceEnv });
    try {
      // No object store runs here, so the API's readiness would name it: its liveness and a write show the bundle works.
      const base = `http://127.0.0.1:${port}`;
      await Promise.all([waitForHttp(`${base}/healthz`), waitForHttp(`http://127.0.0.1:${healthPort}/readyz`)]);
      expect((await call(base, liveKey, 'POST', '/v1/webhooks', { url: receiver.url, events: ['project.created'] })).status).toBe(201);
      const traceId = randomBytes(16).toString('hex');
      const created = await call(
        base,
        liveKey,
        'POST',
        '/v1/projects',
        { name: 'From the image' },
        { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      );
      expect(created.status).toBe(201);

      // The bundles trace what the services run from source do: the request's span named by its route, Postgres and Redis in
      // the API, Postgres in the worker's fan-out.
      await receiver.waitForCount(1);
      const sourcesOf = (service: string) =>
        [
          ...new Set(
            otlp.spans
              .filter((span) => span.traceId === traceId && span.service === service)
              .map((span) => (span.attributes['http.route'] === '/v1/projects' ? 'route' : dbSystem(span))),
          ),
        ]
          .filter(Boolean)
          .sort();
      await waitFor(async () => (sourcesOf('worktrack-api').length >= 3 && sourcesOf('worktrack-worker').length >= 1 ? true : undefined)).catch(
        () => undefined,
      );
      expect(sourcesOf('worktrack-api')).toEqual(['postgresql', 'redis', 'route']);
      expect(sourcesOf('worktrack-worker')).toEqual(['postgresql']);

      // The dashboard's pages are in the bundle, its stylesheet and script beside it.
      expect((await fetch(`http://127.0.0.1:${port}/dashboard/sign-in`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/dashboard/assets/dashboard.js`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${healthPort}/queues`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${healthPort}/queues/static/favicon-32x32.png`)).status).toBe(200);
      api.kill('SIGTERM');
      worker.kill('SIGTERM');
      expect(await exitCode(api)).toBe(0);
      expect(await exitCode(worker)).toBe(0);
    } finally {
      api.kill('SIGKILL');
      worker.kill('SIGKILL');
      await Promise.all([otlp.close(), receiver.close()]);
    }
  }, 60_000);
});
