import type { SqlPool } from '../client';
import type { DeliveryStatus } from '../generated/prisma/enums';

/** A delivery job's claim: attempt `attempt` of the delivery. */
export interface AttemptClaim {
  deliveryId: string;
  attempt: number;
}

export interface ClaimedDelivery {
  id: string;
  eventType: string;
  body: string;
  test: boolean;
  attemptsBeforeRecovery: number;
  /** Attempts made so far: the claimed attempt is the next one. */
  attemptCount: number;
  webhookId: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /** Null for test deliveries, which belong to no event. */
  eventCreatedAt: Date | null;
}

// Locks the claimable rows in id order first, so that two workers claiming overlapping sets (duplicate
// jobs) wait for each other instead of deadlocking; then leases them. `(...) IS TRUE` keeps the
// planner on the primary key: with statistics taken when few deliveries were pending, it would
// otherwise read every pending delivery through the status index for each batch.
const CLAIM = {
  name: 'deliveries.claim',
  text: `
    WITH wanted AS (
      SELECT * FROM unnest($1::text[], $2::int[]) AS w(id, attempt)
    ), claimable AS (
      SELECT d.id FROM "Delivery" d
      JOIN wanted ON wanted.id = d.id
      JOIN "Webhook" w ON w.id = d."webhookId"
      WHERE (w.status = 'active' OR d.test) AND (d.status = 'pending') IS TRUE AND d."attemptCount" = wanted.attempt - 1
        AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now())
      ORDER BY d.id
      FOR UPDATE OF d
    )
    UPDATE "Delivery" d
    SET "lockedUntil" = now() + $3::int * interval '1 millisecond', "updatedAt" = now()
    FROM claimable, "Webhook" w
    WHERE d.id = claimable.id AND w.id = d."webhookId"
    RETURNING d.id, d."eventType", d.body, d.test, d."attemptsBeforeRecovery", d."attemptCount", d."webhookId", w.url, w.secret,
      w."previousSecret", w."previousSecretExpiresAt", (SELECT "createdAt" FROM "OutboxEvent" WHERE id = d."eventId") AS "eventCreatedAt"`,
};

/**
 * Leases deliveries to this worker for `claimMs`, each for its claimed attempt: only while it is
 * pending, its subscription active (or it is a test delivery), the attempt the next one, and no
 * other worker holds it. Returns the deliveries claimed; the others are not this worker's to make.
 */
export async function claimDeliveries(pool: SqlPool, claims: AttemptClaim[], claimMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await pool.query<ClaimedDelivery>({
    ...CLAIM,
    values: [claims.map((c) => c.deliveryId), claims.map((c) => c.attempt), claimMs],
  });
  return rows;
}

/** A delivery whose first attempt is still to be made. */
export interface FirstAttempt {
  eventId: string;
  deliveryId: string;
}

// `(...) IS TRUE` keeps the planner on the (eventId, webhookId) index, as in CLAIM.
const FIRST_ATTEMPTS_PENDING = {
  name: 'deliveries.first-attempts-pending',
  text: `
    SELECT "eventId", id AS "deliveryId" FROM "Delivery"
    WHERE "eventId" = ANY ($1::text[]) AND (status = 'pending') IS TRUE AND "attemptCount" = 0
    ORDER BY id`,
};

/**
 * The deliveries of these (dispatched) events whose first attempt has not been recorded: those of a
 * worker killed after its fan-out committed, for the dispatcher that takes its event over.
 */
export async function firstAttemptsPending(pool: SqlPool, eventIds: string[]): Promise<FirstAttempt[]> {
  const { rows } = await pool.query<FirstAttempt>({ ...FIRST_ATTEMPTS_PENDING, values: [eventIds] });
  return rows;
}

/** One attempt as it is recorded, with what follows it. */
export interface AttemptRecord {
  attemptId: string;
  deliveryId: string;
  webhookId: string;
  attempt: number;
  attemptedAt: Date;
  responseStatus: number | null;
  responseTimeMs: number;
  error: string | null;
  responseBody: string | null;
  responseHeaders: Record<string, string> | null;
  /** The delivery's status after it. */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** The last retry failed: the subscription is disabled. */
  disableWebhook: boolean;
}

const RECORD = {
  name: 'deliveries.record',
  text: `
    WITH o AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS o(
        "attemptId" text, "deliveryId" text, "webhookId" text, attempt int, "attemptedAt" timestamptz, "responseStatus" int,
        "responseTimeMs" int, error text, "responseBody" text, "responseHeaders" jsonb, status "DeliveryStatus",
        "nextAttemptAt" timestamptz, "disableWebhook" boolean)
    ), attempt AS (
      INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "attemptedAt", "responseStatus", "responseTimeMs", error, "responseBody", "responseHeaders")
      SELECT "attemptId", "deliveryId", attempt, "attemptedAt", "responseStatus", "responseTimeMs", error, "responseBody", "responseHeaders" FROM o
    ), delivery AS (
      UPDATE "Delivery" d
      SET "attemptCount" = o.attempt, "lastAttemptAt" = o."attemptedAt", "lockedUntil" = NULL, status = o.status,
          "nextAttemptAt" = o."nextAttemptAt", "updatedAt" = now()
      FROM o
      WHERE d.id = o."deliveryId"
    )
    UPDATE "Webhook" w
    SET status = 'disabled', "disabledReason" = 'delivery_failures', "disabledAt" = now(), "updatedAt" = now()
    FROM o
    WHERE o."disableWebhook" AND w.id = o."webhookId" AND w.status = 'active'`,
};

/**
 * Records attempts and what follows each, in one statement: the attempt row, the delivery settled,
 * rescheduled or failed (its lease released), and after a last failed retry the subscription disabled.
 */
export async function recordAttempts(pool: SqlPool, records: AttemptRecord[]): Promise<void> {
  await pool.query({ ...RECORD, values: [JSON.stringify(records)] });
}
