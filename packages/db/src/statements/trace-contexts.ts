import type { SqlPool } from '../client';

/** What a delivery attempt's span continues and links to (docs/decisions.md#traces). */
export interface DeliveryTraceContext {
  deliveryId: string;
  organizationId: string;
  /** The change that wrote its event; null for a test send or an untraced change. */
  eventTraceparent: string | null;
  /** Its latest attempt's span, which a retry or a redelivery links to; null before the first. */
  lastAttemptTraceparent: string | null;
}

// Read only while the worker traces: the claim stays as it is, and one statement serves the
// attempts starting together.
const TRACE_CONTEXTS = {
  name: 'trace-contexts.deliveries',
  text: `
    SELECT d.id AS "deliveryId", d."organizationId", e.traceparent AS "eventTraceparent",
      (SELECT a.traceparent FROM "DeliveryAttempt" a WHERE a."deliveryId" = d.id ORDER BY a."attemptNumber" DESC LIMIT 1) AS "lastAttemptTraceparent"
    FROM "Delivery" d
    LEFT JOIN "OutboxEvent" e ON e.id = d."eventId"
    WHERE d.id = ANY ($1::text[])`,
};

/** The trace contexts of these deliveries (a delivery gone meanwhile is left out). */
export async function deliveryTraceContexts(pool: SqlPool, deliveryIds: string[]): Promise<DeliveryTraceContext[]> {
  const { rows } = await pool.query<DeliveryTraceContext>({ ...TRACE_CONTEXTS, values: [deliveryIds] });
  return rows;
}
