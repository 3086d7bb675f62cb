import { Prisma, type Webhook } from '../generated/prisma/client';
import { advisoryLock, lockScopedRow, type TenantConn } from './connection';
import { prismaWindow, type PageWindow } from './listing';

export interface WebhookStatsRow {
  attempts: number;
  succeeded: number;
  p50Ms: number | null;
  p95Ms: number | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  hourly: { start: string; succeeded: number; failed: number }[];
}

export interface DisabledWebhook {
  id: string;
  url: string;
  description: string | null;
  disabledAt: Date | null;
}

/** A subscription's JSON controls as callers write them: null clears one. */
interface JsonControls {
  filter?: Record<string, unknown> | null;
  headers?: Record<string, string> | null;
}

/** Prisma writes SQL NULL into a JSON column only for its DbNull. */
const jsonColumns = <T extends JsonControls>({ filter, headers, ...rest }: T) => ({
  ...rest,
  ...(filter !== undefined && { filter: filter === null ? Prisma.DbNull : (filter as Prisma.InputJsonObject) }),
  ...(headers !== undefined && { headers: headers ?? Prisma.DbNull }),
});

/** The tenant's webhook subscriptions. */
export function webhooks({ conn, scope }: TenantConn) {
  return {
    find: (id: string) => conn.webhook.findFirst({ where: { id, ...scope } }),
    lock: (id: string) => lockScopedRow(conn, 'Webhook', scope, id),
    /**
     * Counts the tenant's subscriptions with creations serialized for the rest of the transaction,
     * so two concurrent requests cannot both take a plan's last slot.
     */
    countForCreation: async () => {
      await advisoryLock(conn, `webhooks:${scope.organizationId}:${scope.mode}`);
      return conn.webhook.count({ where: scope });
    },
    create: (
      webhook: Pick<Webhook, 'id' | 'url' | 'events' | 'description' | 'secret'> &
        Partial<Pick<Webhook, 'maxConcurrency' | 'rateLimit' | 'ordering' | 'projectIds' | 'headersSealed'>> &
        JsonControls,
    ) => conn.webhook.create({ data: { ...jsonColumns(webhook), ...scope } }),
    update: (id: string, data: Omit<Prisma.WebhookUncheckedUpdateInput, keyof JsonControls> & JsonControls) =>
      conn.webhook.update({ where: { id, ...scope }, data: jsonColumns(data) }),
    /**
     * Stores its compiled filter (null: none) beside the filter itself. Prisma has no type for
     * `jsonpath`, hence this statement; Postgres parses the text once, here, and `"Webhook_wants"`
     * evaluates the parsed form for every event.
     */
    setFilterPath: (id: string, jsonpath: string | null) =>
      conn.$executeRaw`UPDATE "Webhook" SET "filterPath" = ${jsonpath}::jsonpath WHERE id = ${id} AND "organizationId" = ${scope.organizationId} AND mode = ${scope.mode}::"Mode"`,
    /** Deletes it with its delivery log. */
    remove: (id: string) => conn.webhook.delete({ where: { id, ...scope } }),
    list: () => ({
      rows: (window: PageWindow<'createdAt'>) => conn.webhook.findMany(prismaWindow(scope, window)),
      total: () => conn.webhook.count({ where: scope }),
    }),
    /** The subscriptions its last retries disabled, until re-enabled or deleted, the latest five: the dashboard's banner on every page. */
    listDisabled: (): Promise<DisabledWebhook[]> =>
      conn.webhook.findMany({
        where: { ...scope, status: 'disabled', disabledReason: 'delivery_failures' },
        select: { id: true, url: true, description: true, disabledAt: true },
        orderBy: { disabledAt: 'desc' },
        take: 5,
      }),

    /**
     * One statement over a subscription's attempts since `since`, hour by hour up to `now`; only
     * deliveries attempted since then are read (index on webhookId, lastAttemptAt). An attempt
     * succeeded when it recorded no error.
     */
    stats: async (id: string, since: Date, now: Date): Promise<WebhookStatsRow> => {
      const [row] = await conn.$queryRaw<WebhookStatsRow[]>`
        WITH attempt AS (
          SELECT a."attemptedAt", a."responseTimeMs", a.error IS NULL AS ok
          FROM "Delivery" d JOIN "DeliveryAttempt" a ON a."deliveryId" = d.id
          WHERE d."webhookId" = ${id} AND d."organizationId" = ${scope.organizationId} AND d.mode = ${scope.mode}::"Mode"
            AND d."lastAttemptAt" >= ${since} AND a."attemptedAt" >= ${since}
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
      return row!;
    },
  };
}
