// `pnpm bench:growth:deliveries`: the Delivery and DeliveryAttempt tables over a simulated month and
// more, with DELIVERY_RETENTION_DAYS pruning as the worker's sweep does it. In a scratch database of
// its own (migrated, dropped at the end) on DATABASE_URL's server: each simulated day inserts
// GROWTH_PER_DAY finished deliveries with two attempts each (GROWTH_BATCH rows a statement, as the
// fan-out and the grouped records write them), then deletes what fell out of the window with the
// sweep's own statement (deleteExpiredDeliveries, 5,000 a statement), then runs VACUUM (what
// autovacuum does in production; it is off on the development machines). Prints, for chosen days,
// the two tables' size with their indexes, the insert cost per 1,000 deliveries and the longest
// delete statement. At steady state (past the window) the size stays flat and inserts cost the same.
// Settings: GROWTH_DAYS (45), GROWTH_PER_DAY (20000), GROWTH_BATCH (5000), DELIVERY_RETENTION_DAYS (30).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { loadDotEnv } from '@worktrack/config';
import { createDatabase, deleteExpiredDeliveries, idBoundaryAt, newId } from '@worktrack/db';
import { runToExit } from './run-to-exit';

const days = Number(process.env.GROWTH_DAYS ?? 45);
const perDay = Number(process.env.GROWTH_PER_DAY ?? 20_000);
const batch = Number(process.env.GROWTH_BATCH ?? 5_000);
const retentionDays = Number(process.env.DELIVERY_RETENTION_DAYS ?? 30);
const DAY_MS = 24 * 3_600_000;
const PRUNE_BATCH = 5_000;

async function main(): Promise<void> {
  loadDotEnv();
  const server = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/worktrack');
  const url = new URL(server);
  url.pathname = `/worktrack_growth_${Date.now().toString(36)}`;
  execFileSync(process.execPath, [path.join(__dirname, '..', 'scripts/prisma.mjs'), 'deploy'], {
    env: { ...process.env, DATABASE_URL: url.toString() },
    stdio: 'pipe',
  });
  const database = createDatabase(url.toString(), { poolSize: 2 });
  try {
    const org = newId('organization');
    const webhook = newId('webhook');
    await database.pool.query(`INSERT INTO "Organization" (id, name, "updatedAt") VALUES ($1, 'Growth', now())`, [org]);
    await database.pool.query(
      `INSERT INTO "Webhook" (id, "organizationId", mode, url, secret, events, "updatedAt") VALUES ($1, $2, 'live', 'https://example.com/hooks', 's', '{*}', now())`,
      [webhook, org],
    );
    const start = Date.now() - days * DAY_MS;
    const rows: string[][] = [];
    const shown = (day: number) => day === 1 || day === Math.round(retentionDays / 2) || day >= retentionDays;
    for (let day = 1; day <= days; day++) {
      const today = new Date(start + day * DAY_MS);
      const began = performance.now();
      for (let done = 0; done < perDay; done += batch) {
        // Ids as the day's ULIDs would sort: the day's time, then a unique tail.
        await database.pool.query(
          `WITH d AS (
             INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventId", "eventType", body, status, "attemptCount", "lastAttemptAt", "createdAt", "updatedAt")
             SELECT $1 || lpad(i::text, 16, '0'), $2, 'live', $3, 'evt_' || $1 || i, 'task.created', repeat('x', 600), 'succeeded', 2, $4, $4, $4
             FROM generate_series($5::int, $6::int) i
             RETURNING id
           )
           INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "attemptedAt", "responseStatus", "responseTimeMs")
           SELECT 'att_' || substr(d.id, 5) || n, d.id, n, $4, CASE n WHEN 1 THEN 500 ELSE 200 END, 40 FROM d, generate_series(1, 2) n`,
          [idBoundaryAt('delivery', today), org, webhook, today, done, Math.min(done + batch, perDay) - 1],
        );
      }
      const insertMs = performance.now() - began;
      let longestDeleteMs = 0;
      const cutoff = new Date(today.getTime() - retentionDays * DAY_MS);
      for (;;) {
        const t = performance.now();
        const deleted = await deleteExpiredDeliveries(database.pool, cutoff, PRUNE_BATCH);
        longestDeleteMs = Math.max(longestDeleteMs, performance.now() - t);
        if (deleted < PRUNE_BATCH) break;
      }
      await database.pool.query('VACUUM "Delivery", "DeliveryAttempt"');
      if (!shown(day)) continue;
      const { rows: sizes } = await database.pool.query<{ deliveries: string; size: string }>(
        `SELECT (SELECT count(*) FROM "Delivery") AS deliveries,
                pg_size_pretty(pg_total_relation_size('"Delivery"') + pg_total_relation_size('"DeliveryAttempt"')) AS size`,
      );
      rows.push([String(day), sizes[0]!.deliveries, sizes[0]!.size, ((insertMs / perDay) * 1000).toFixed(0), longestDeleteMs.toFixed(0)]);
    }
    const line = (cells: string[]) => console.log(`| ${cells.join(' | ')} |`);
    console.log(`\n${perDay.toLocaleString('en-US')} deliveries a day (2 attempts each), kept ${retentionDays} days\n`);
    line(['day', 'deliveries kept', 'Delivery + attempts, with indexes', 'insert ms per 1,000 deliveries', 'longest delete statement ms']);
    line(['---:', '---:', '---:', '---:', '---:']);
    for (const row of rows) line(row);
  } finally {
    await database.close();
    server.pathname = '/postgres';
    const admin = new Client({ connectionString: server.toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${url.pathname.slice(1)}" WITH (FORCE)`);
    await admin.end();
  }
}

runToExit(main);
