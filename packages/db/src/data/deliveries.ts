import type { Prisma } from '../generated/prisma/client';
import type { DeliveryOrdering, DeliveryStatus } from '../generated/prisma/enums';
import { insertTenantDeliveries, type DeliveryRow } from '../statements/delivery-rows';
import type { TenantConn } from './connection';
import { prismaWindow, type PageWindow } from './listing';

/** An event a subscription has no delivery of. */
export interface MissedEvent {
  id: string;
  type: string;
  data: unknown;
  createdAt: Date;
  /** Its commit position (a bigint, as text). */
  position: string;
}

const notLeased = () => ({ OR: [{ lockedUntil: null }, { lockedUntil: { lt: new Date() } }] });

export interface DeliveryLogFilters {
  status?: DeliveryStatus | undefined;
  eventType?: string | undefined;
  deliveryId?: string | undefined;
  eventId?: string | undefined;
  /** An event's `data.id`, validated as an id (a prefix and letters and digits) by the caller. */
  resourceId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

/**
 * The rows the (webhookId, createdAt, id) index bounds by the date range. A resource is found in the
 * stored body, which names it as the event's `"id":"..."` (bodies are serialized once, by
 * JSON.stringify, so the text is exact); the event's outbox row may be gone, the delivery's body never is.
 */
function deliveryLogWhere(webhookId: string, filters: DeliveryLogFilters): Prisma.DeliveryWhereInput {
  return {
    webhookId,
    ...(filters.status && { status: filters.status }),
    ...(filters.eventType && { eventType: filters.eventType }),
    ...(filters.deliveryId && { id: filters.deliveryId }),
    ...(filters.eventId && { eventId: filters.eventId }),
    ...(filters.resourceId && { body: { contains: `"id":"${filters.resourceId}"` } }),
    ...((filters.since || filters.until) && { createdAt: { ...(filters.since && { gte: filters.since }), ...(filters.until && { lt: filters.until }) } }),
  };
}

/** The last attempt of a delivery: its HTTP status and time, for the log's columns. */
const lastAttempt = {
  attempts: { orderBy: { attemptNumber: 'desc' }, take: 1, select: { responseStatus: true, responseTimeMs: true } },
} satisfies Prisma.DeliveryInclude;

/** The tenant's deliveries, always reached through their subscription. */
export function deliveries({ conn, scope }: TenantConn) {
  return {
    /** A delivery of the subscription, with its last attempt. */
    find: (webhookId: string, id: string) => conn.delivery.findFirst({ where: { id, webhookId, ...scope }, include: lastAttempt }),
    attempts: (id: string) => conn.deliveryAttempt.findMany({ where: { delivery: { id, ...scope } }, orderBy: { attemptNumber: 'asc' } }),
    /** Deliveries of the subscription due at once (recoveries, test sends); the ids inserted. */
    insert: async (webhookId: string, rows: Omit<DeliveryRow, 'webhookId'>[]) =>
      (
        await insertTenantDeliveries(
          conn,
          scope,
          rows.map((row) => ({ ...row, webhookId })),
        )
      ).map((row) => row.id),
    /** A subscription's delivery log, filtered, newest first, each with its last attempt. */
    list: (webhookId: string, filters: DeliveryLogFilters) => {
      const where = { ...deliveryLogWhere(webhookId, filters), ...scope };
      return {
        rows: (window: PageWindow<'createdAt'>) => conn.delivery.findMany({ ...prismaWindow(where, window), include: lastAttempt }),
        total: () => conn.delivery.count({ where }),
      };
    },
    /**
     * Makes a delivery due again now, unless it is being attempted (leased). Whether it was. It leaves
     * its resource's order (docs/decisions.md#ordered-delivery): a redelivery is sent at once and
     * holds back nothing.
     */
    makeDue: async (webhookId: string, id: string) =>
      (
        await conn.delivery.updateMany({
          where: { id, webhookId, ...scope, ...notLeased() },
          data: { status: 'pending', nextAttemptAt: new Date(), resourceId: null, position: null },
        })
      ).count > 0,
    /**
     * Brings the subscription's pending deliveries to its ordering, in the transaction that set it
     * (its row locked): under `resource` each takes its event's resource and position (test sends and
     * events without an `id` stay unordered), under `none` they drop them. What is claimed next
     * follows the new mode; an attempt in flight ends as it began.
     */
    matchOrdering: (webhookId: string, ordering: DeliveryOrdering) =>
      ordering === 'none'
        ? conn.delivery.updateMany({ where: { webhookId, ...scope, status: 'pending', resourceId: { not: null } }, data: { resourceId: null, position: null } })
        : conn.$executeRaw`
            UPDATE "Delivery" d SET "resourceId" = e.data->>'id', position = e.position, "updatedAt" = now()
            FROM "OutboxEvent" e
            WHERE d."webhookId" = ${webhookId} AND d."organizationId" = ${scope.organizationId} AND d.mode = ${scope.mode}::"Mode"
              AND d.status = 'pending' AND d."resourceId" IS NULL AND NOT d.test
              AND e.id = d."eventId" AND e.data->>'id' IS NOT NULL`,
    /** A resumed subscription's pending deliveries, due at once; one still leased is left to its worker. */
    resumePending: (webhookId: string) =>
      conn.delivery.updateMany({ where: { webhookId, ...scope, status: 'pending', ...notLeased() }, data: { nextAttemptAt: new Date() } }),

    /** Failed deliveries of the window back to pending, the schedule counting from their last attempt. Their ids. */
    retryFailed: async (webhookId: string, since: Date, until: Date, limit: number) =>
      conn.$queryRaw<{ id: string }[]>`
        UPDATE "Delivery"
        SET status = 'pending', "attemptsBeforeRecovery" = "attemptCount", "nextAttemptAt" = date_trunc('milliseconds', now()), "lockedUntil" = NULL, "updatedAt" = now()
        WHERE id IN (
          SELECT id FROM "Delivery"
          WHERE "webhookId" = ${webhookId} AND "organizationId" = ${scope.organizationId} AND mode = ${scope.mode}::"Mode"
            AND status = 'failed' AND NOT test AND "createdAt" >= ${since} AND "createdAt" < ${until}
          ORDER BY id LIMIT ${limit}
        )
        RETURNING id`,

    /**
     * The window's events the subscription wants as it is now (`"Webhook_wants"`, the fan-out's own
     * test: its types, projects and filter) and has no delivery of, oldest first.
     */
    missedEvents: (webhookId: string, since: Date, until: Date, limit: number) =>
      conn.$queryRaw<MissedEvent[]>`
        SELECT e.id, e.type, e.data, e."createdAt", e.position::text AS position
        FROM "OutboxEvent" e
        JOIN "Webhook" w ON w.id = ${webhookId}
        WHERE e."organizationId" = ${scope.organizationId} AND e.mode = ${scope.mode}::"Mode"
          AND e."createdAt" >= ${since} AND e."createdAt" < ${until}
          AND "Webhook_wants"(w, e)
          AND NOT EXISTS (SELECT 1 FROM "Delivery" d WHERE d."eventId" = e.id AND d."webhookId" = ${webhookId})
        ORDER BY e."createdAt", e.id
        LIMIT ${limit}`,
  };
}
