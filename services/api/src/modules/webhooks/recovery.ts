import { newId, type Db, type Tx } from '@worktrack/db';
import { buildDeliveryBody } from '@worktrack/events';
import type { Tenant } from '../../http/auth';
import { conflict } from '../../http/errors';
import { webhookResource } from './webhook-record';

export const RECOVERY_LIMIT = 10_000;

interface Window {
  webhookId: string;
  since: Date;
  until: Date;
}

interface MissedEvent {
  id: string;
  type: string;
  data: unknown;
  createdAt: Date;
}

/**
 * In one transaction, with the subscription locked against a concurrent disable: failed deliveries
 * of the window go back to pending with the schedule counting from their last attempt, then events
 * of the window with no delivery for the subscription get one, oldest first, up to the limit. All
 * are due at once: the workers' claims find them. Returns how many.
 */
export async function recoverDeliveries(db: Db, tenant: Tenant, { webhookId, since, until }: Window): Promise<number> {
  return db.$transaction(async (tx) => {
    const webhook = await webhookResource.lock(tx, tenant, webhookId);
    if (webhook.status !== 'active') throw conflict('The subscription is disabled; re-enable it before recovering', 'webhookId');

    const resent = await tx.$queryRaw<{ id: string }[]>`
      UPDATE "Delivery"
      SET status = 'pending', "attemptsBeforeRecovery" = "attemptCount", "nextAttemptAt" = now(), "lockedUntil" = NULL, "updatedAt" = now()
      WHERE id IN (
        SELECT id FROM "Delivery"
        WHERE "webhookId" = ${webhook.id} AND status = 'failed' AND NOT test AND "createdAt" >= ${since} AND "createdAt" < ${until}
        ORDER BY id LIMIT ${RECOVERY_LIMIT}
      )
      RETURNING id`;

    // The subscription's events, as the fan-out decides them: its types, projects and filter.
    const missed = await tx.$queryRaw<MissedEvent[]>`
      SELECT e.id, e.type, e.data, e."createdAt"
      FROM "OutboxEvent" e
      JOIN "Webhook" w ON w.id = ${webhook.id}
      WHERE e."organizationId" = ${tenant.organizationId} AND e.mode = ${tenant.mode}::"Mode"
        AND e."createdAt" >= ${since} AND e."createdAt" < ${until}
        AND "Webhook_wants"(w, e)
        AND NOT EXISTS (SELECT 1 FROM "Delivery" d WHERE d."eventId" = e.id AND d."webhookId" = ${webhook.id})
      ORDER BY e."createdAt", e.id
      LIMIT ${RECOVERY_LIMIT - resent.length}`;
    const created = await insertDeliveries(tx, tenant, webhook.id, missed);

    return resent.length + created.length;
  });
}

/** The same rows the worker's fan-out makes; a fan-out racing it for the same event makes nothing twice. */
async function insertDeliveries(tx: Tx, scope: Tenant, webhookId: string, missed: MissedEvent[]): Promise<string[]> {
  if (missed.length === 0) return [];
  const rows = missed.map((event) => {
    const id = newId('delivery');
    const body = buildDeliveryBody({
      eventType: event.type,
      occurredAt: event.createdAt,
      webhookId,
      deliveryId: id,
      data: event.data,
      organization: { id: scope.organizationId, name: scope.organizationName },
    });
    return { id, eventId: event.id, eventType: event.type, body };
  });
  const inserted = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventId", "eventType", body, "nextAttemptAt", "createdAt", "updatedAt")
    SELECT d.id, ${scope.organizationId}, ${scope.mode}::"Mode", ${webhookId}, d."eventId", d."eventType", d.body, now(), now(), now()
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS d(id text, "eventId" text, "eventType" text, body text)
    ON CONFLICT DO NOTHING
    RETURNING id`;
  return inserted.map((row) => row.id);
}
