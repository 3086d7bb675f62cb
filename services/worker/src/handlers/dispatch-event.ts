import { newId, type Mode } from '@worktrack/db';
import { buildDeliveryBody } from '@worktrack/events';
import type { DispatchEventPayload } from '@worktrack/queue';
import type { WorkerDeps } from '../deps';

interface EventToDispatch {
  id: string;
  type: string;
  data: unknown;
  createdAt: Date;
  dispatchedAt: Date | null;
  organizationId: string;
  organizationName: string;
  mode: Mode;
  /** Active subscriptions of the same organization and mode that list the type or `*`. */
  webhookIds: string[];
}

/**
 * Fans one outbox event out: a delivery row per matching active subscription, each with its own
 * deliveryId, then a delivery job each. Marking the event dispatched and inserting its deliveries
 * is one statement, and only the dispatcher that marks it inserts, so an event never fans out twice.
 */
export async function dispatchEvent(deps: WorkerDeps, { eventId }: DispatchEventPayload): Promise<number> {
  const { db, jobs } = deps;
  const [event] = await db.$queryRaw<EventToDispatch[]>`
    SELECT e.id, e.type, e.data, e."createdAt", e."dispatchedAt", e."organizationId", o.name AS "organizationName",
           e.mode::text AS mode, COALESCE(array_agg(w.id) FILTER (WHERE w.id IS NOT NULL), '{}') AS "webhookIds"
    FROM "OutboxEvent" e
    JOIN "Organization" o ON o.id = e."organizationId"
    LEFT JOIN "Webhook" w ON w."organizationId" = e."organizationId" AND w.mode = e.mode AND w.status = 'active'
      AND (e.type = ANY (w.events) OR '*' = ANY (w.events))
    WHERE e.id = ${eventId}
    GROUP BY e.id, o.name`;
  if (!event || event.dispatchedAt) return 0;

  const deliveries = event.webhookIds.map((webhookId) => {
    const id = newId('delivery');
    const body = buildDeliveryBody({
      eventType: event.type,
      occurredAt: event.createdAt,
      webhookId,
      deliveryId: id,
      data: event.data,
      organization: { id: event.organizationId, name: event.organizationName },
    });
    return { id, webhookId, body };
  });
  const inserted = await db.$executeRaw`
    WITH claimed AS (
      UPDATE "OutboxEvent" SET "dispatchedAt" = now() WHERE id = ${event.id} AND "dispatchedAt" IS NULL RETURNING id
    )
    INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventId", "eventType", body, "nextAttemptAt", "createdAt", "updatedAt")
    SELECT d.id, ${event.organizationId}, ${event.mode}::"Mode", d."webhookId", claimed.id, ${event.type}, d.body, now(), now(), now()
    FROM jsonb_to_recordset(${JSON.stringify(deliveries)}::jsonb) AS d(id text, "webhookId" text, body text), claimed
    ON CONFLICT DO NOTHING`;
  if (inserted > 0) await jobs.scheduleDeliveries(deliveries.map((d) => ({ deliveryId: d.id, attempt: 1 })));
  return inserted;
}
