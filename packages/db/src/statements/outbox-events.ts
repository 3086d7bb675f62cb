import type { SqlPool } from '../client';
import type { Mode } from '../generated/prisma/enums';
import type { ClaimedDelivery } from './deliveries';

export interface EventToDispatch {
  id: string;
  type: string;
  data: unknown;
  createdAt: Date;
  organizationId: string;
  organizationName: string;
  mode: Mode;
  /** Active subscriptions of the same organization and mode that list the type or `*`. */
  webhookIds: string[];
}

// `(... IS NULL) IS TRUE` keeps the planner on the primary key: with statistics taken when no event
// was waiting, it would otherwise read every undispatched event through the dispatchedAt index.
const UNDISPATCHED = {
  name: 'outbox-events.undispatched',
  text: `
    SELECT e.id, e.type, e.data, e."createdAt", e."organizationId", o.name AS "organizationName", e.mode::text AS mode,
           COALESCE(array_agg(w.id) FILTER (WHERE w.id IS NOT NULL), '{}') AS "webhookIds"
    FROM "OutboxEvent" e
    JOIN "Organization" o ON o.id = e."organizationId"
    LEFT JOIN "Webhook" w ON w."organizationId" = e."organizationId" AND w.mode = e.mode AND w.status = 'active'
      AND (e.type = ANY (w.events) OR '*' = ANY (w.events))
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
  /** Lease its first attempt to this worker at once (when the subscription is still active). */
  claim: boolean;
}

/** A delivery inserted by the fan-out, with its first attempt's lease when it asked for one and got it. */
export interface FannedOutDelivery {
  id: string;
  eventId: string;
  claimed: ClaimedDelivery | null;
}

// Marking the events dispatched and inserting their deliveries is one statement, and a delivery is
// inserted only for an event this very statement marked: an event never fans out twice. A delivery
// that asks for it is inserted leased, as claimDeliveries would lease its first attempt.
const FAN_OUT = {
  name: 'outbox-events.fan-out',
  text: `
    WITH marked AS (
      UPDATE "OutboxEvent" SET "dispatchedAt" = now()
      WHERE id = ANY ($1::text[]) AND ("dispatchedAt" IS NULL) IS TRUE
      RETURNING id, "organizationId", mode, type, "createdAt"
    ), inserted AS (
      INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventId", "eventType", body, "nextAttemptAt", "lockedUntil", "createdAt", "updatedAt")
      SELECT d.id, marked."organizationId", marked.mode, d."webhookId", marked.id, marked.type, d.body, now(),
        CASE WHEN d.claim AND w.status = 'active' THEN now() + $3::int * interval '1 millisecond' END, now(), now()
      FROM jsonb_to_recordset($2::jsonb) AS d(id text, "eventId" text, "webhookId" text, body text, claim boolean)
      JOIN marked ON marked.id = d."eventId"
      JOIN "Webhook" w ON w.id = d."webhookId"
      ON CONFLICT DO NOTHING
      RETURNING id, "eventId", "webhookId", "eventType", "lockedUntil"
    )
    SELECT i.id, i."eventId", i."lockedUntil" IS NOT NULL AS claimed, i."webhookId", i."eventType", w.url, w.secret, w."previousSecret",
      w."previousSecretExpiresAt", marked."createdAt" AS "eventCreatedAt"
    FROM inserted i
    JOIN "Webhook" w ON w.id = i."webhookId"
    JOIN marked ON marked.id = i."eventId"`,
};

type FanOutRow = Omit<ClaimedDelivery, 'body' | 'test' | 'attemptsBeforeRecovery' | 'attemptCount'> & { eventId: string; claimed: boolean };

/**
 * Marks the events dispatched and inserts the deliveries of those it marked (an event already marked
 * by another dispatcher gets none), leasing for `claimMs` the first attempts asked for.
 */
export async function fanOutEvents(pool: SqlPool, eventIds: string[], deliveries: NewDelivery[], claimMs: number): Promise<FannedOutDelivery[]> {
  const { rows } = await pool.query<FanOutRow>({ ...FAN_OUT, values: [[...eventIds].sort(), JSON.stringify(deliveries), claimMs] });
  const bodies = new Map(deliveries.map((d) => [d.id, d.body]));
  return rows.map(({ eventId, claimed, ...row }) => ({
    id: row.id,
    eventId,
    claimed: claimed ? { ...row, body: bodies.get(row.id)!, test: false, attemptsBeforeRecovery: 0, attemptCount: 0 } : null,
  }));
}
