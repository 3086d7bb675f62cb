import type { Db } from '@worktrack/db';

export interface WebhookStats {
  window: '24h';
  attempts: number;
  succeeded: number;
  failed: number;
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  hourly: { start: string; succeeded: number; failed: number }[];
}

interface StatsRow {
  attempts: number;
  succeeded: number;
  p50Ms: number | null;
  p95Ms: number | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  hourly: { start: string; succeeded: number; failed: number }[];
}

const WINDOW_MS = 24 * 3600 * 1000;

/**
 * One statement over the attempts of the last 24 hours; only deliveries attempted since then are
 * read (index on webhookId, lastAttemptAt). An attempt succeeded when it recorded no error.
 */
export async function webhookStats(db: Db, webhookId: string, now: Date): Promise<WebhookStats> {
  const since = new Date(now.getTime() - WINDOW_MS);
  const [row] = await db.$queryRaw<StatsRow[]>`
    WITH attempt AS (
      SELECT a."attemptedAt", a."responseTimeMs", a.error IS NULL AS ok
      FROM "Delivery" d JOIN "DeliveryAttempt" a ON a."deliveryId" = d.id
      WHERE d."webhookId" = ${webhookId} AND d."lastAttemptAt" >= ${since} AND a."attemptedAt" >= ${since}
    ), hour AS (
      SELECT h.start, count(a.*) FILTER (WHERE a.ok)::int AS succeeded, count(a.*) FILTER (WHERE NOT a.ok)::int AS failed
      FROM generate_series(date_trunc('hour', ${now}::timestamptz, 'UTC') - interval '23 hours', date_trunc('hour', ${now}::timestamptz, 'UTC'), interval '1 hour') AS h(start)
      LEFT JOIN attempt a ON a."attemptedAt" >= h.start AND a."attemptedAt" < h.start + interval '1 hour'
      GROUP BY h.start
    )
    SELECT count(*)::int AS attempts,
           count(*) FILTER (WHERE ok)::int AS succeeded,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY "responseTimeMs") AS "p50Ms",
           percentile_disc(0.95) WITHIN GROUP (ORDER BY "responseTimeMs") AS "p95Ms",
           max("attemptedAt") FILTER (WHERE ok) AS "lastSuccessAt",
           max("attemptedAt") FILTER (WHERE NOT ok) AS "lastFailureAt",
           (SELECT json_agg(json_build_object('start', to_char(start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                              'succeeded', succeeded, 'failed', failed) ORDER BY start) FROM hour) AS hourly
    FROM attempt`;
  const stats = row!;
  return {
    window: '24h',
    attempts: stats.attempts,
    succeeded: stats.succeeded,
    failed: stats.attempts - stats.succeeded,
    successRate: stats.attempts === 0 ? null : Math.round((stats.succeeded / stats.attempts) * 10_000) / 10_000,
    p50Ms: stats.p50Ms,
    p95Ms: stats.p95Ms,
    lastSuccessAt: stats.lastSuccessAt?.toISOString() ?? null,
    lastFailureAt: stats.lastFailureAt?.toISOString() ?? null,
    hourly: stats.hourly,
  };
}
