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
  /** Its commit position (a bigint, as text): the order of the events about one resource. */
  position: string;
  /** The subscriptions that want it (`"Webhook_wants"`: active, same organization and mode, type, projects and filter). */
  webhookIds: string[];
  /** One of them orders its deliveries by resource (docs/decisions.md#ordered-delivery). */
  ordered: boolean;
}

// Its subscriptions are those the outbox trigger and recovery also ask about: `"Webhook_wants"` (migration
// 20261126120000_subscriber_controls) is the one definition, inlined by the planner.
const EVENTS_WITH_SUBSCRIPTIONS = `
    SELECT e.id, e.type, e.data, e."createdAt", e."organizationId", o.name AS "organizationName", e.mode::text AS mode,
           e.position::text AS position, COALESCE(array_agg(w.id) FILTER (WHERE w.id IS NOT NULL), '{}') AS "webhookIds",
           COALESCE(bool_or(w.ordering = 'resource'), false) AS ordered
    FROM "OutboxEvent" e
    JOIN "Organization" o ON o.id = e."organizationId"
    LEFT JOIN "Webhook" w ON "Webhook_wants"(w, e)`;

// `(... IS NULL) IS TRUE` keeps the planner on the primary key: with statistics taken when no event
// was waiting, it would otherwise read every undispatched event through the dispatchedAt index.
const UNDISPATCHED = {
  name: 'outbox-events.undispatched',
  text: `${EVENTS_WITH_SUBSCRIPTIONS}
    WHERE e.id = ANY ($1::text[]) AND (e."dispatchedAt" IS NULL) IS TRUE
    GROUP BY e.id, o.name`,
};

/** The events among these that are not dispatched yet, each with the subscriptions it goes to. */
export async function undispatchedEvents(pool: SqlPool, eventIds: string[]): Promise<EventToDispatch[]> {
  const { rows } = await pool.query<EventToDispatch>({ ...UNDISPATCHED, values: [eventIds] });
  return rows;
}

// Through the (dispatchedAt, createdAt) index: the undispatched events are those published and not
// fanned out yet, a few, or a backlog while Redis was away.
const EARLIER_UNDISPATCHED = {
  name: 'outbox-events.earlier-undispatched',
  text: `${EVENTS_WITH_SUBSCRIPTIONS}
    WHERE e."dispatchedAt" IS NULL AND NOT (e.id = ANY ($2::text[]))
      AND EXISTS (
        SELECT 1 FROM jsonb_to_recordset($1::jsonb) AS later("organizationId" text, mode "Mode", "resourceId" text, position bigint)
        WHERE e."organizationId" = later."organizationId" AND e.mode = later.mode AND e.data->>'id' = later."resourceId" AND e.position < later.position
      )
    GROUP BY e.id, o.name`,
};

/**
 * The events not dispatched yet that are about the same resources as these and came before them
 * (lower positions), other than these: fanned out with them, so that an ordered subscription never
 * gets a resource's later delivery before an earlier event of it has its delivery (its job still
 * queued, or lost with Redis and waiting for the sweep).
 */
export async function earlierUndispatchedEvents(pool: SqlPool, later: EventToDispatch[]): Promise<EventToDispatch[]> {
  const keys = later.map((event) => ({ organizationId: event.organizationId, mode: event.mode, resourceId: resourceOf(event.data), position: event.position }));
  const { rows } = await pool.query<EventToDispatch>({ ...EARLIER_UNDISPATCHED, values: [JSON.stringify(keys), later.map((event) => event.id)] });
  return rows;
}

/** The resource an event is about: the `id` of its `data` (a task, project, comment, file, member...). */
export function resourceOf(data: unknown): string | null {
  const id = (data as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
}
