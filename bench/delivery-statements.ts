// What Postgres does per delivery, without HTTP: the fan-out, claim and record statements the worker
// runs, in the batches a saturated worker runs them (BENCH_CLAIM, BENCH_RECORD), over a fresh database,
// with rows of their real size (a task.created event's data and body, the request's headers recorded). Prints per delivery the
// statements, the WAL bytes, the backends' CPU time from /proc, and per table the rows written and
// how many of the updates were HOT.
import { cpuMicros } from './proc-cpu';
import { claimDueDeliveries, createDatabase, fanOutEvents, newId, recordAttempts, unscopedData, type AttemptRecord } from '@worktrack/db';
import { buildDeliveryHeaders } from '../packages/webhooks/src';
import { bootstrapOrganization } from '../services/api/src/modules/organizations/bootstrap-organization';
import { taskRecord } from './task-record';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  const EVENTS = Number(process.env.BENCH_EVENTS ?? 4000);
  // A saturated worker's claims and records at cap 100 (bench/acceptance-deliveries.ts counts them: about 23 and 19
  // deliveries each); at the default cap of 10, about 4 each.
  const CLAIM = Number(process.env.BENCH_CLAIM ?? 50);
  const RECORD = Number(process.env.BENCH_RECORD ?? CLAIM / 2);
  const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 2);
  const CAP = Number(process.env.BENCH_CAP ?? 100);
  const database = createDatabase(url, { poolSize: 2 });
  const { pool } = database;

  const org = await bootstrapOrganization(unscopedData({ db: database.db }), {
    name: 'Bench',
    email: `bench-${newId('user')}@example.com`,
    plan: 'enterprise',
    dailyQuota: null,
  });
  const organizationId = org.organization.id;
  // The events and bodies of a task as the API serializes it, the record's headers as the worker's: rows of their real size.
  const data = taskRecord(newId('project'), org.user.id);
  const webhooks = Array.from({ length: SUBSCRIPTIONS }, () => newId('webhook'));
  for (const id of webhooks)
    await pool.query(
      `INSERT INTO "Webhook" (id, "organizationId", mode, url, events, secret, "maxConcurrency", "createdAt", "updatedAt") VALUES ($1, $2, 'live', 'http://127.0.0.1:1/hook', '{*}', 'whsec-x', $3, now(), now())`,
      [id, organizationId, CAP],
    );

  const TABLES = ['Delivery', 'DeliveryAttempt', 'Webhook', 'OutboxEvent'];
  async function snapshot() {
    const {
      rows: [wal],
    } = await pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    const { rows: tables } = await pool.query<{ relname: string; ins: string; upd: string; hot: string }>(
      `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = ANY ($1)`,
      [TABLES],
    );
    const { rows: backends } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
    return { lsn: wal!.lsn, tables, cpu: backends.reduce((sum, b) => sum + cpuMicros(b.pid), 0) };
  }

  async function round(events: number, measured: boolean) {
    const statements = { fanOut: 0, claim: 0, record: 0 };
    const { rows: backendRows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
    const backendCpu = () => backendRows.reduce((sum, b) => sum + cpuMicros(b.pid), 0);
    const cpu = { fanOut: 0, claim: 0, record: 0 };
    const timed = async <T>(kind: keyof typeof cpu, run: () => Promise<T>): Promise<T> => {
      const start = backendCpu();
      const result = await run();
      cpu[kind] += backendCpu() - start;
      statements[kind]++;
      return result;
    };
    const ids: string[] = [];
    for (let i = 0; i < events; i += 500) {
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "createdAt")
       SELECT 'evt_' || md5(random()::text), $1, 'live', 'task.created', $3::jsonb, now() FROM generate_series(1, $2) RETURNING id`,
        [organizationId, Math.min(500, events - i), JSON.stringify(data)],
      );
      ids.push(...rows.map((r) => r.id));
    }
    await pool.query('SELECT pg_stat_clear_snapshot()');
    const before = await snapshot();
    for (let i = 0; i < ids.length; i += 100) {
      const batch = ids.slice(i, i + 100);
      const rows = batch.flatMap((eventId) =>
        webhooks.map((webhookId) => ({
          id: newId('delivery'),
          webhookId,
          eventId,
          eventType: 'task.created',
          body: JSON.stringify({ type: 'task.created', timestamp: new Date().toISOString(), webhookId, deliveryId: eventId, data }),
        })),
      );
      await timed('fanOut', () => fanOutEvents(pool, batch, rows));
    }
    for (;;) {
      const { deliveries } = await timed('claim', () => claimDueDeliveries(pool, CLAIM, 60_000));
      if (deliveries.length === 0) break;
      const records: AttemptRecord[] = deliveries.map((d) => ({
        attemptId: newId('attempt'),
        deliveryId: d.id,
        webhookId: d.webhookId,
        attempt: d.attemptCount + 1,
        attemptedAt: new Date(),
        responseStatus: 200,
        responseTimeMs: 1,
        error: null,
        responseBody: 'ok',
        responseHeaders: { 'content-length': '0', date: new Date().toUTCString() },
        requestHeaders: buildDeliveryHeaders({ secret: 'whsec-x', previousSecret: null, deliveryId: d.id, eventType: d.eventType, body: d.body }),
        status: 'succeeded',
        nextAttemptAt: null,
        disableWebhook: false,
        pauseWebhookUntil: null,
      }));
      for (let i = 0; i < records.length; i += RECORD) await timed('record', () => recordAttempts(pool, records.slice(i, i + RECORD)));
    }
    await new Promise((resolve) => setTimeout(resolve, 600)); // statistics are flushed at most every 500 ms
    await pool.query('SELECT pg_stat_clear_snapshot()');
    const after = await snapshot();
    if (!measured) return;
    const n = ids.length * webhooks.length;
    const {
      rows: [wal],
    } = await pool.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($1, $2)::bigint AS bytes', [after.lsn, before.lsn]);
    console.log(
      `${n} deliveries: ${((statements.fanOut + statements.claim + statements.record) / n).toFixed(3)} statements, ${(Number(wal!.bytes) / n).toFixed(0)} WAL bytes, ${((after.cpu - before.cpu) / n).toFixed(0)} µs backend CPU per delivery`,
    );
    for (const kind of Object.keys(cpu) as (keyof typeof cpu)[])
      console.log(`  ${kind}: ${statements[kind]} statements, ${(cpu[kind] / n).toFixed(0)} µs backend CPU per delivery`);
    for (const t of after.tables) {
      const b = before.tables.find((x) => x.relname === t.relname)!;
      const ins = Number(t.ins) - Number(b.ins),
        upd = Number(t.upd) - Number(b.upd),
        hot = Number(t.hot) - Number(b.hot);
      console.log(
        `  ${t.relname}: ${(ins / n).toFixed(2)} inserts, ${(upd / n).toFixed(2)} updates (${upd ? ((100 * hot) / upd).toFixed(0) : 0}% HOT) per delivery`,
      );
    }
  }

  await round(300, false);
  await pool.query('VACUUM ANALYZE');
  await round(EVENTS, true);
  await database.close();
}

void main();
