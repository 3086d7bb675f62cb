import type { Actor } from '@worktrack/events';
import type { SqlPool } from '../client';
import type { Mode } from '../generated/prisma/enums';

export interface EventToDispatch {
  id: string;
  type: string;
  data: unknown;
  actor: Actor;
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
    SELECT e.id, e.type, e.data, e.actor, e."createdAt", e."organizationId", o.name AS "organizationName", e.mode::text AS mode,
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
