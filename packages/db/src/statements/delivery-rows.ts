import type { SqlPool } from '../client';
import type { Conn } from '../data/connection';
import type { Scope } from '../scope';

/** A delivery row to insert: its own id, its subscription, its event (none for a test send), its serialized body. */
export interface DeliveryRow {
  id: string;
  webhookId: string;
  eventId: string | null;
  eventType: string;
  body: string;
  test?: boolean;
  /** The resource its event is about, and the event's position: kept only if the subscription orders by resource. */
  resourceId?: string | null;
  position?: string | null;
}

// The one insert of delivery rows: the fan-out's, recoveries' and test sends'. Each is due at once, for
// the workers' claims (its due time truncated to the column's milliseconds: stored rounded, it could
// lie up to half a millisecond ahead, and a claim made at once would pass it by); its organization
// and mode are its subscription's, and a subscription deleted meanwhile gets none. An event's delivery for a subscription is made once (ON CONFLICT on (eventId,
// webhookId)). A row of an event named in $1 is inserted only if this very statement marks that event
// dispatched, so that an event never fans out twice, however many dispatch it; rows of other events
// (recovered, dispatched long ago) or of none (test sends) go in as they are. With a tenant ($3, $4),
// only that tenant's subscriptions get rows. A subscription that orders by resource keeps each row's
// resource and position (docs/decisions.md#ordered-delivery); its row is locked (KEY SHARE, as the
// foreign key's check would) before its ordering is read, so that a PATCH of `ordering`, which holds
// the row's FOR UPDATE lock until it commits, is waited for and its new value read: the PATCH brings
// the pending deliveries it sees to its mode, and this insert's rows are written under it.
const INSERT_DELIVERIES = {
  name: 'deliveries.insert',
  text: `
    WITH marked AS (
      UPDATE "OutboxEvent" SET "dispatchedAt" = now()
      WHERE id = ANY ($1::text[]) AND ("dispatchedAt" IS NULL) IS TRUE
      RETURNING id
    )
    INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventId", "eventType", body, test, "resourceId", position, "nextAttemptAt", "createdAt", "updatedAt")
    SELECT d.id, w."organizationId", w.mode, w.id, d."eventId", d."eventType", d.body, coalesce(d.test, false),
      CASE WHEN w.ordering = 'resource' THEN d."resourceId" END, CASE WHEN w.ordering = 'resource' AND d."resourceId" IS NOT NULL THEN d.position END,
      date_trunc('milliseconds', now()), now(), now()
    FROM jsonb_to_recordset($2::jsonb) AS d(id text, "webhookId" text, "eventId" text, "eventType" text, body text, test boolean, "resourceId" text, position bigint)
    JOIN "Webhook" w ON w.id = d."webhookId"
    WHERE ((d."eventId" = ANY ($1::text[])) IS NOT TRUE OR d."eventId" IN (SELECT id FROM marked))
      AND ($3::text IS NULL OR (w."organizationId" = $3 AND w.mode = $4::"Mode"))
    FOR KEY SHARE OF w
    ON CONFLICT DO NOTHING
    RETURNING id, "eventId"`,
};

interface Inserted {
  id: string;
  eventId: string | null;
}

/**
 * The fan-out: marks the events dispatched and inserts the deliveries of those it marked (an event
 * already marked by another dispatcher gets none), on the pool, as one prepared statement. Resolves
 * with the event id of each delivery inserted.
 */
export async function fanOutEvents(pool: SqlPool, eventIds: string[], rows: DeliveryRow[]): Promise<string[]> {
  const { rows: inserted } = await pool.query<Inserted>({ ...INSERT_DELIVERIES, values: [[...eventIds].sort(), JSON.stringify(rows), null, null] });
  return inserted.map((row) => row.eventId!);
}

/** A tenant's deliveries (recoveries, test sends) on its connection, in its transaction if it is one. */
export function insertTenantDeliveries(conn: Conn, scope: Scope, rows: DeliveryRow[]): Promise<Inserted[]> {
  return conn.$queryRawUnsafe<Inserted[]>(INSERT_DELIVERIES.text, [], JSON.stringify(rows), scope.organizationId, scope.mode);
}
