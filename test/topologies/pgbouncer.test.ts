import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { verify } from '@octokit/webhooks-methods';
import { Client } from 'pg';
import { as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver } from '@test-support/receiver';
import { startTestWorker } from '@test-support/worker-harness';
import { repoRoot } from '@test-support/processes';
import { removeServerDirs, startPgBouncer, stop, topologyPort, type Server } from '@test-support/postgres-topologies';

/*
 * DATABASE_URL pointing at Debian's PgBouncer in transaction pooling mode (DATABASE_POOLER=pgbouncer),
 * with fewer server connections than the services open: the API's writes (the prepared task insert,
 * Prisma's interactive transactions), its lists, and the worker's fan-out, fair claim and grouped
 * records all go through it, concurrently. Named prepared statements would fail here as soon as a
 * transaction landed on a server connection that had not prepared them.
 */

const SECRET = 'secret_through_the_pooler';
let bouncer: Server;
let bouncerPort: number;
let h: Harness;
let worker: { close(): Promise<void> };
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let org: TestOrg;

const throughBouncer = (database: string) => `postgresql://postgres@127.0.0.1:${bouncerPort}/${database}`;

beforeAll(async () => {
  bouncerPort = await topologyPort();
  bouncer = await startPgBouncer(bouncerPort, Number(new URL(process.env.DATABASE_URL!).port || 5432), 3);
  const settings = { DATABASE_URL: throughBouncer(new URL(process.env.DATABASE_URL!).pathname.slice(1)), DATABASE_POOLER: 'pgbouncer' };
  const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
  h = createHarness({ ...settings, REDIS_PREFIX: prefix, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  worker = startTestWorker({ prefix, env: { ...settings, WORKER_CONCURRENCY: '10' } });
  receiver = await startReceiver((n) => ({ status: n % 4 === 0 ? 500 : 200 }));
  org = await createOrg(h.db);
}, 30_000);
afterAll(async () => {
  await worker?.close();
  await receiver?.close();
  await h?.close();
  await stop(bouncer);
  removeServerDirs();
});

/** PgBouncer's own count of transactions it carried to this database. */
async function transactionsCarried(database: string): Promise<number> {
  const admin = new Client({ host: '127.0.0.1', port: bouncerPort, user: 'postgres', database: 'pgbouncer' });
  await admin.connect();
  try {
    // The admin console speaks only the simple query protocol.
    const { rows } = await admin.query({ text: 'SHOW STATS', queryMode: 'simple' } as never);
    return Number((rows as { database: string; total_xact_count: string }[]).find((row) => row.database === database)?.total_xact_count ?? 0);
  } finally {
    await admin.end();
  }
}

describe('through PgBouncer in transaction pooling mode', () => {
  it('serves the API and delivers every event, signed, with retries, on 3 server connections', async () => {
    const database = new URL(process.env.DATABASE_URL!).pathname.slice(1);
    const before = await transactionsCarried(database);
    const api = as(h.app, org.liveKey);
    const webhook = await api.post('/v1/webhooks', { url: receiver.url, events: ['task.created', 'task.updated'], secret: SECRET });
    expect(webhook.status).toBe(201);
    const project = await api.post('/v1/projects', { name: 'Pooled' });
    expect(project.status).toBe(201);

    // Concurrent creations: more at once than PgBouncer has server connections.
    const created = await Promise.all(Array.from({ length: 24 }, (_, i) => api.post('/v1/tasks', { projectId: project.body.id, title: `Task ${i}` })));
    expect(created.map((res) => res.status)).toEqual(created.map(() => 201));
    const updated = await Promise.all(created.slice(0, 6).map((res) => api.patch(`/v1/tasks/${res.body.id}`, { status: 'in_progress' })));
    expect(updated.map((res) => res.status)).toEqual(updated.map(() => 200));
    const page = await api.get(`/v1/tasks?projectId=${project.body.id}&limit=10`);
    expect({ status: page.status, total: page.body.pagination.total, length: page.body.data.length }).toEqual({ status: 200, total: 24, length: 10 });

    // Every event reaches the receiver, a quarter of the attempts failing first and being retried.
    const expected = new Set([...created.map((res) => `task.created ${res.body.id}`), ...updated.map((res) => `task.updated ${res.body.id}`)]);
    const delivered = await waitFor(
      async () => {
        const ok = new Set(receiver.received.filter((_, n) => n % 4 !== 0).map((r) => `${r.json.event} ${(r.json.data as { id: string }).id}`));
        return [...expected].every((key) => ok.has(key)) ? receiver.received : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(await verify(SECRET, delivered[0]!.body, delivered[0]!.headers['x-service-signature'] as string)).toBe(true);
    const log = await waitFor(async () => {
      const res = await api.get(`/v1/webhooks/${webhook.body.id}/deliveries?limit=100`);
      return res.body.data.every((d: { status: string }) => d.status === 'succeeded') && res.body.data.length === expected.size ? res.body : undefined;
    });
    expect(log.data).toHaveLength(expected.size);

    expect(await transactionsCarried(database)).toBeGreaterThan(before + 50);
  }, 60_000);

  it('migrates through DATABASE_DIRECT_URL while DATABASE_URL names PgBouncer', () => {
    const direct = new URL(process.env.DATABASE_URL!);
    direct.pathname = `${direct.pathname}_direct`;
    const output = execFileSync(process.execPath, [path.join(repoRoot, 'scripts/prisma.mjs'), 'deploy'], {
      env: { ...process.env, DATABASE_URL: throughBouncer(direct.pathname.slice(1)), DATABASE_DIRECT_URL: direct.toString() },
      encoding: 'utf8',
    });
    expect(output).toContain('(DATABASE_DIRECT_URL)');
    expect(output).toMatch(/Applied \d+ migration/);
  });
});
