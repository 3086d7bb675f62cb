import net from 'node:net';
import { once } from 'node:events';
import { exitCode, CLOSED_PORT, freePort, runBundled, waitForHttp } from '@test-support/processes';
import { waitFor } from '@test-support/wait-for';

// The entry points as the image runs them (the run's bundle: the same code as `pnpm start` and
// `pnpm cli` run through tsx, started in half the time; test/entry-points.test.ts runs those).
const CLI = 'cli';
const API = 'api';
const WORKER = 'worker';
type Entry = typeof CLI | typeof API | typeof WORKER;

/** The database of this test file, renamed, on the same server, or moved to a port nothing listens on. */
const databaseNamed = (name: string) => Object.assign(new URL(process.env.DATABASE_URL!), { pathname: `/${name}` }).toString();
const databaseAtPort = (port: number) => Object.assign(new URL(process.env.DATABASE_URL!), { port: String(port) }).toString();

/** Runs an entry point to its exit: what it printed on stderr, and its exit code. */
async function failure(entry: Entry, args: string[], env: NodeJS.ProcessEnv) {
  const child = runBundled(entry, args, env);
  const code = await exitCode(child, 90_000);
  return { code, lines: child.errorOutput().trimEnd().split('\n') };
}

/** One plain line (no JSON, no stack frame) matching `says`, exit code 1: from each entry point, run together. */
async function expectOneLine(entries: readonly (readonly [Entry, readonly string[]])[], env: NodeJS.ProcessEnv, says: RegExp) {
  const results = await Promise.all(entries.map(([entry, args]) => failure(entry, [...args], env).then((result) => ({ entry, ...result }))));
  for (const result of results) expect(result).toEqual({ entry: result.entry, code: 1, lines: [expect.stringMatching(says)] });
}

const EVERY_ENTRY = [
  [CLI, ['orgs', 'list']],
  [API, []],
  [WORKER, []],
] as const;

// Each case starts the entry points afresh, the cases at once: generous bounds for a busy machine.
jest.setTimeout(120_000);

/** Ports of its own for each case, so that cases run at once never take each other's. */
async function servicePorts() {
  const [api, health] = await Promise.all([freePort(), freePort()]);
  return { PORT: String(api), WORKER_HEALTH_PORT: String(health) };
}

// Concurrent cases run at once only as siblings: every case in one block.
describe('what an operator reads when the API, the worker or the CLI cannot start, or Redis goes away', () => {
  it.concurrent('a database that does not exist: run `pnpm db:migrate`', async () => {
    await expectOneLine(
      EVERY_ENTRY,
      { ...(await servicePorts()), DATABASE_URL: databaseNamed('worktrack_not_created') },
      /^The database "worktrack_not_created" at 127\.0\.0\.1:\d+ does not exist\. Run `pnpm db:migrate` to create it, or set DATABASE_URL to an existing one\.$/,
    );
  });

  it.concurrent('a database with no tables: run `pnpm db:migrate`', async () => {
    await expectOneLine(
      [[API, []]],
      { ...(await servicePorts()), DATABASE_URL: databaseNamed('postgres') },
      /^The database "postgres" at 127\.0\.0\.1:\d+ has no tables yet\. Run `pnpm db:migrate`\.$/,
    );
  });

  it.concurrent('Postgres unreachable: where it was looked for, and the setting', async () => {
    await expectOneLine(
      EVERY_ENTRY,
      { ...(await servicePorts()), DATABASE_URL: databaseAtPort(CLOSED_PORT) },
      new RegExp(`^Cannot reach the database "[\\w-]+" at 127\\.0\\.0\\.1:${CLOSED_PORT}\\. Check DATABASE_URL and that PostgreSQL is running\\.$`),
    );
  });

  it.concurrent('a malformed setting: which one, and where settings are set', async () => {
    await expectOneLine(
      EVERY_ENTRY,
      { ...(await servicePorts()), QUEUE_SHARDS: 'many' },
      /^Invalid configuration: "QUEUE_SHARDS" must be a number\. Fix it in the environment or in \.env \(\.env\.example lists every setting\)\.$/,
    );
  });

  it.concurrent('a port in use: which setting chooses it', async () => {
    const holder = net.createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as net.AddressInfo;
    try {
      const taken = new RegExp(
        `^Cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use\\. Set (PORT \\(or HOST\\)|WORKER_HEALTH_PORT \\(or WORKER_HEALTH_HOST\\)) to a free port, or stop what holds it\\.$`,
      );
      const ports = await servicePorts();
      await Promise.all([
        expectOneLine([[API, []]], { ...ports, PORT: String(port) }, taken),
        expectOneLine([[WORKER, []]], { ...ports, WORKER_HEALTH_PORT: String(port) }, taken),
      ]);
    } finally {
      holder.close();
    }
  });

  /** Runs an entry point against a Redis port nothing listens on until it printed two notices, then stops it. */
  async function runWithoutRedis(entry: Entry, portSetting: string) {
    const [port, redisPort] = [await freePort(), CLOSED_PORT];
    const child = runBundled(entry, [], {
      [portSetting]: String(port),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REDIS_PREFIX: `wt-test-unreachable-${port}`,
    });
    const notices: number[] = [];
    child.stderr!.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().trimEnd().split('\n')) if (line.startsWith('Cannot reach Redis')) notices.push(Date.now());
    });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, 90_000);
      await waitFor(async () => (notices.length >= 2 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 }).catch((err: Error) => {
        throw new Error(`${err.message}; ${entry} printed:\n${child.output()}`);
      });
      const stopping = Date.now();
      child.kill('SIGTERM');
      const code = await exitCode(child);
      return { entry, redisPort, code, stopMs: Date.now() - stopping, gapMs: notices[1]! - notices[0]!, errors: child.errorOutput(), output: child.output() };
    } finally {
      child.kill('SIGKILL');
    }
  }

  it.concurrent('Redis unreachable while the services run: the API and the worker say so on one plain line every few seconds, and stop as fast as with Redis up', async () => {
    const runs = await Promise.all([runWithoutRedis(API, 'PORT'), runWithoutRedis(WORKER, 'WORKER_HEALTH_PORT')]);
    for (const run of runs) {
      const notice = `Cannot reach Redis at 127.0.0.1:${run.redisPort}. Start Redis, or set REDIS_URL to where it runs; retrying.`;
      expect({ entry: run.entry, errors: run.errors.trimEnd().split('\n'), code: run.code }).toEqual({ entry: run.entry, errors: [notice, notice], code: 0 });
      expect(run.gapMs).toBeGreaterThanOrEqual(4_900);
      // Nor is every failed command logged (LOG_LEVEL=warn would show each).
      expect(run.output).not.toMatch(/queue unavailable|queue worker error/);
      // Exit code 0: the drain ended before the deadline (15 s, exit 1), which is what used to end a
      // stop without Redis; on a quiet machine both stop within half a second, Redis up or not.
      expect(run.stopMs).toBeLessThan(10_000);
    }
  });

  it.concurrent('PUBLIC_BASE_URL naming this machine at another port than the API listens on: one warning at start', async () => {
    const ports = await servicePorts();
    const elsewhere = `http://127.0.0.1:${Number(ports.PORT) + 1}`;
    const api = runBundled(API, [], { ...ports, PUBLIC_BASE_URL: elsewhere, REDIS_PREFIX: `wt-test-base-url-${ports.PORT}` });
    try {
      await waitForHttp(`http://127.0.0.1:${ports.PORT}/healthz`, 90_000);
      api.kill('SIGTERM');
      expect(await exitCode(api)).toBe(0);
      const warnings = api
        .output()
        .split('\n')
        .filter((line) => line.includes('PUBLIC_BASE_URL ('));
      expect(warnings).toEqual([expect.stringContaining(`PUBLIC_BASE_URL (${elsewhere}) names this machine at port ${Number(ports.PORT) + 1}`)]);
    } finally {
      api.kill('SIGKILL');
    }
  });

  /** A way to this test file's Postgres that can be cut: the server closed, every connection through it dropped. */
  async function cuttablePostgres() {
    const target = new URL(process.env.DATABASE_URL!);
    const sockets = new Set<net.Socket>();
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      port: (server.address() as net.AddressInfo).port,
      cut() {
        server.close();
        for (const socket of sockets) socket.destroy();
      },
    };
  }

  it.concurrent('Postgres unreachable while the worker runs: one plain line every few seconds, not every failed query, and a stop as fast as with it up', async () => {
    const postgres = await cuttablePostgres();
    const healthPort = await freePort();
    const child = runBundled(WORKER, [], {
      WORKER_HEALTH_PORT: String(healthPort),
      DATABASE_URL: databaseAtPort(postgres.port),
      REDIS_PREFIX: `wt-test-postgres-gone-${healthPort}`,
    });
    const notices: number[] = [];
    child.stderr!.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().trimEnd().split('\n')) if (line.startsWith('Cannot reach the database')) notices.push(Date.now());
    });
    try {
      await waitForHttp(`http://127.0.0.1:${healthPort}/healthz`, 90_000);
      postgres.cut();
      await waitFor(async () => (notices.length >= 2 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 }).catch((err: Error) => {
        throw new Error(`${err.message}; the worker printed:\n${child.output()}`);
      });
      const stopping = Date.now();
      child.kill('SIGTERM');
      const code = await exitCode(child);
      // Well within the 15 s shutdown deadline, which a stop waiting on the lost database would reach.
      expect(Date.now() - stopping).toBeLessThan(10_000);
      const notice = 'Cannot reach the database. Check DATABASE_URL and that PostgreSQL is running; retrying.';
      expect({ code, errors: child.errorOutput().trimEnd().split('\n') }).toEqual({ code: 0, errors: [notice, notice] });
      expect(notices[1]! - notices[0]!).toBeGreaterThanOrEqual(4_900);
      // Nor is each failed sweep or claim logged (LOG_LEVEL=warn would show them).
      expect(child.output()).not.toMatch(/sweep failed|claim failed/);
    } finally {
      child.kill('SIGKILL');
      postgres.cut();
    }
  });
});
