import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver } from '@test-support/receiver';
import { startTestWorker } from '@test-support/worker-harness';
import { repoRoot } from '@test-support/processes';
import {
  initCluster,
  pgProgram,
  removeServerDirs,
  runAsServerUser,
  serverDir,
  startHaproxy,
  startPostgres,
  stop,
  topologyPort,
  waitForPostgres,
  type Server,
} from '@test-support/postgres-topologies';

/*
 * A Postgres failover under load (docs/decisions.md#redis-and-postgres-beyond-one-server): a
 * primary with a synchronous streaming replica, HAProxy in front (the address the services use), the
 * API taking task creations with a subscription and the worker delivering them. The primary stops, the replica is promoted, HAProxy
 * moves to it: every acknowledged task's event is delivered, every answer is 201 or 503, and the
 * services come back by themselves.
 */

let primary: Server;
let replica: Server;
let haproxy: Server;
let replicaDir: string;
let h: Harness;
let worker: { close(): Promise<void> } | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let org: TestOrg;

async function sql(port: number, text: string): Promise<unknown[]> {
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  const [primaryPort, replicaPort, proxyPort] = [await topologyPort(), await topologyPort(), await topologyPort()];
  const primaryDir = initCluster('pg-primary');
  primary = await startPostgres(primaryDir, primaryPort);
  const databaseUrl = `postgresql://postgres@127.0.0.1:${primaryPort}/worktrack`;
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/prisma.mjs'), 'deploy'], { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: 'pipe' });

  replicaDir = path.join(serverDir('pg-replica'), 'data');
  runAsServerUser(pgProgram('pg_basebackup'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(primaryPort),
    '-U',
    'postgres',
    '-D',
    replicaDir,
    '-R',
    '-X',
    'stream',
    '--checkpoint=fast',
  ]);
  // The replica, once promoted, has no standby of its own to wait for.
  replica = await startPostgres(replicaDir, replicaPort, { synchronous_standby_names: '' });
  // Commits are acknowledged once the replica has them: none acknowledged is lost with the primary.
  await sql(primaryPort, "ALTER SYSTEM SET synchronous_standby_names = '*'");
  await sql(primaryPort, 'SELECT pg_reload_conf()');
  await waitFor(async () => ((await sql(primaryPort, "SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'")).length === 1 ? true : undefined));

  haproxy = await startHaproxy(proxyPort, [primaryPort, replicaPort]);
  // A new cluster's first session in a database builds its catalog caches: slow on a busy machine, and not the subject here.
  await waitForPostgres(proxyPort, 'worktrack');
  const settings = { DATABASE_URL: `postgresql://postgres@127.0.0.1:${proxyPort}/worktrack`, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
  const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
  h = createHarness({ ...settings, REDIS_PREFIX: prefix });
  worker = startTestWorker({ prefix, env: { ...settings, WORKER_SWEEP_GRACE_MS: '1000' } });
  receiver = await startReceiver();
  // Set-up, not the subject: on a busy machine the new cluster's first transactions may wait past Prisma's 2 s for a connection.
  org = await waitFor(async () => createOrg(h.db).catch(() => undefined), { timeoutMs: 60_000, intervalMs: 500 });
}, 180_000);

afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await h?.close();
  for (const server of [haproxy, replica, primary]) await stop(server, 'SIGINT');
  removeServerDirs();
});

describe('a Postgres failover under load', () => {
  it('loses no acknowledged task or event, answers only 201 or 503, and recovers by itself', async () => {
    const api = as(h.app, org.liveKey);
    const webhook = await api.post('/v1/webhooks', { url: receiver.url, events: ['task.created'], secret: 'secret_failover_secret' });
    const project = await api.post('/v1/projects', { name: 'Failover' });
    expect([webhook.status, project.status]).toEqual([201, 201]);

    const statuses = new Map<number, number>();
    const acknowledged: string[] = [];
    let stopping = false;
    let failedAt = 0;
    let recoveredAt = 0;
    // Steady load: four clients creating tasks one after another.
    const load = Array.from({ length: 4 }, async (_, client) => {
      for (let i = 0; !stopping; i++) {
        const res = await api.post('/v1/tasks', { projectId: project.body.id, title: `Task ${client}-${i}` });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 201) {
          acknowledged.push(res.body.id as string);
          if (failedAt && !recoveredAt) recoveredAt = Date.now();
        }
      }
    });

    await waitFor(async () => (acknowledged.length >= 40 ? true : undefined), { timeoutMs: 20_000 });
    failedAt = Date.now();
    await stop(primary, 'SIGINT');
    runAsServerUser(pgProgram('pg_ctl'), ['promote', '-w', '-D', replicaDir]);
    await waitFor(async () => (recoveredAt && acknowledged.length >= 80 ? true : undefined), { timeoutMs: 30_000 });
    stopping = true;
    await Promise.all(load);

    console.log(
      `failover: ${acknowledged.length} tasks acknowledged, answers ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `first 201 ${recoveredAt - failedAt} ms after the primary was stopped (promotion included)`,
    );
    expect([...statuses.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);

    const delivered = await waitFor(
      async () => {
        const ids = new Set(receiver.received.map((r) => (r.json.data as { id: string }).id));
        return acknowledged.every((id) => ids.has(id)) ? ids : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(acknowledged.filter((id) => !delivered.has(id))).toEqual([]);
    await waitForPostgres(Number(new URL(h.deps.config.databaseUrl).port), 'worktrack');
  }, 120_000);
});
