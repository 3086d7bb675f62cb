import type { SqlPool } from '../client';
import type { Mode } from '../generated/prisma/enums';

export interface EventToDispatch {
  id: string;
  type: string;
  data: unknown;
  createdAt: Date;
  organizationId: string;
  organizationName: string;
  mode: Mode;
  /** The subscriptions that want it (`"Webhook_wants"`: active, same organization and mode, type, projects and filter). */
  webhookIds: string[];
}

// Its subscriptions are those the outbox trigger and recovery also ask about: `"Webhook_wants"` (migration
// 20261126120000_subscriber_controls) is the one definition, inlined by the planner.
// `(... IS NULL) IS TRUE` keeps the planner on the primary key: with statistics taken when no event
// was waiting, it would otherwise read every undispatched event through the dispatchedAt index.
const UNDISPATCHED = {
  name: 'outbox-events.undispatched',
  text: `
    SELECT e.id, e.type, e.data, e."createdAt", e."organizationId", o.name AS "organizationName", e.mode::text AS mode,
           COALESCE(array_agg(w.id) FILTER (WHERE w.id IS NOT NULL), '{}') AS "webhookIds"
    FROM "OutboxEvent" e
    JOIN "Organization" o ON o.id = e."organizationId"
    LEFT JOIN "Webhook" w ON "Webhook_wants"(w, e)
    WHERE e.id = ANY ($1::text[]) AND (e."dispatchedAt" IS NULL) IS TRUE
    GROUP BY e.id, o.name`,
};

/** The events among these that are not dispatched yet, each with the subscriptions it goes to. */
export async function undispatchedEvents(pool: SqlPool, eventIds: string[]): Promise<EventToDispatch[]> {
  const { rows } = await pool.query<EventToDispatch>({ ...UNDISPATCHED, values: [eventIds] });
  return rows;
}

/** A delivery to insert for an event: its own id, its subscription, its serialized body. */
export interface NewDelivery {
  id: string;
  eventId: string;
  webhookId: string;
  body: string;
}

// Marking the events dispatched and inserting their deliveries is one statement, and a delivery is
// inserted only for an event this very statement marked: an event never fans out twice. Each is due
// at once; the fair claim (claimDueDeliveries) decides when it is sent.
const FAN_OUT = {
  name: 'outbox-events.fan-out',
  text: `
    WITH marked AS (
      UPDATE "OutboxEvent" SET "dispatchedAt" = now()
      WHERE id = ANY ($1::text[]) AND ("dispatchedAt" IS NULL) IS TRUE
      RETURNING id, "organizationId", mode, type
    )
    INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventId", "eventType", body, "nextAttemptAt", "createdAt", "updatedAt")
    SELECT d.id, marked."organizationId", marked.mode, d."webhookId", marked.id, marked.type, d.body, now(), now(), now()
    FROM jsonb_to_recordset($2::jsonb) AS d(id text, "eventId" text, "webhookId" text, body text)
    JOIN marked ON marked.id = d."eventId"
    JOIN "Webhook" w ON w.id = d."webhookId"
    ON CONFLICT DO NOTHING
    RETURNING "eventId"`,
};

/**
 * Marks the events dispatched and inserts the deliveries of those it marked (an event already marked
 * by another dispatcher gets none). Resolves with the event id of each delivery inserted.
 */
export async function fanOutEvents(pool: SqlPool, eventIds: string[], deliveries: NewDelivery[]): Promise<string[]> {
  const { rows } = await pool.query<{ eventId: string }>({ ...FAN_OUT, values: [[...eventIds].sort(), JSON.stringify(deliveries)] });
  return rows.map((row) => row.eventId);
}
