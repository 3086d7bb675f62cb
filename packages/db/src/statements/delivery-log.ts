import type { Prisma } from '../generated/prisma/client';
import type { DeliveryStatus } from '../generated/prisma/enums';

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
 * A subscription's delivery log, filtered: the rows the (webhookId, createdAt, id) index bounds by
 * the date range. A resource is found in the stored body, which names it as the event's `"id":"..."`
 * (bodies are serialized once, by JSON.stringify, so the text is exact); the event's outbox row may
 * be gone, the delivery's body never is.
 */
export function deliveryLogWhere(webhookId: string, filters: DeliveryLogFilters): Prisma.DeliveryWhereInput {
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

/** The last attempt of each listed delivery: its HTTP status and time, for the log's columns. */
export const lastAttemptOfDelivery = {
  attempts: { orderBy: { attemptNumber: 'desc' }, take: 1, select: { responseStatus: true, responseTimeMs: true } },
} satisfies Prisma.DeliveryInclude;
