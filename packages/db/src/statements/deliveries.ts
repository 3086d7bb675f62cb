import type { SqlPool } from '../client';
import type { DeliveryStatus } from '../generated/prisma/enums';
import { idBoundaryAt } from '../ids';

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
  /** The subscription's own headers, a JSON object sealed like its secret (`webhookHeadersContext`); null when none. */
  headersSealed: string | null;
  /** Null for test deliveries, which belong to no event. */
  eventCreatedAt: Date | null;
}

// The organizations with a delivery due and unleased that may be sent now (its subscription active
// and not paused, or a test delivery). The subscriptions with pending deliveries are found by a skip
// scan of the (status, webhookId, nextAttemptAt) index, so a backlog of thousands costs one probe per
// subscription, not a row each; the probe for a due delivery is a LATERAL ... LIMIT 1 on the same
// index (an EXISTS may be planned as a hash of every pending delivery when the statistics are old).
// Locking the organizations (NO KEY UPDATE: tasks inserted meanwhile still take their key share)
// makes each one's claims take turns across workers, so its counts of
// attempts in flight, read by the next statement, cannot be raced past its caps; SKIP LOCKED leaves
// an organization another worker is claiming for to that worker.
const LOCK_DUE_ORGANIZATIONS = {
  name: 'deliveries.lock-due-organizations',
  text: `
    WITH RECURSIVE pending AS (
      (SELECT "webhookId" AS id FROM "Delivery" WHERE status = 'pending' ORDER BY "webhookId" LIMIT 1)
      UNION ALL
      SELECT (SELECT "webhookId" FROM "Delivery" WHERE status = 'pending' AND "webhookId" > p.id ORDER BY "webhookId" LIMIT 1)
      FROM pending p WHERE p.id IS NOT NULL
    )
    SELECT o.id FROM "Organization" o
    WHERE o.id IN (
      SELECT w."organizationId" FROM pending p
      JOIN "Webhook" w ON w.id = p.id
      CROSS JOIN LATERAL (
        SELECT 1 FROM "Delivery" d
        WHERE d.status = 'pending' AND d."webhookId" = w.id AND d."nextAttemptAt" <= now()
          AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now())
          AND (d.test OR (w.status = 'active' AND (w."pausedUntil" IS NULL OR w."pausedUntil" <= now())))
        ORDER BY d."nextAttemptAt"
        LIMIT 1
      ) due
    )
    ORDER BY o.id
    FOR NO KEY UPDATE SKIP LOCKED`,
};

// In the same transaction, with the organizations locked: each subscription may take due deliveries
// up to its maxConcurrency less its attempts in flight (`inFlight`: its deliveries leased, kept by
// this statement and the record), and up to the whole tokens of its rate limit's bucket (refilled at
// rateLimit a second, holding half a second's worth, at least one: the workers claim at least every
// quarter second while they have free slots, so none is lost); each organization up to the largest
// maxConcurrency of its subscriptions less its own attempts in flight, so that fifty busy
// subscriptions get it no more than one. A delivery whose lease lapsed (its worker died) is still
// counted in flight, so taking it again takes no more of either cap. Of what may be taken, the least
// loaded organization goes first, and within it the least loaded subscription (load: attempts in
// flight plus those taken before in this claim), then the longest due: a weighted round robin by
// organization, then by subscription. A subscription contributes at most the claim's limit, so each reads no more than
// that many of its due deliveries, however large its cap. The claimed deliveries are leased for $3 ms, and the counts and
// buckets charged. Each subscription's due deliveries are read in the index's order (nextAttemptAt
// alone, so no sort of its whole backlog), and the lease finds its rows by primary key (`(...) IS
// TRUE` keeps the planner from scanning the pending ones through the status index when its
// statistics are old); it sets only lockedUntil, which no index holds, so it is a HOT update.
const CLAIM_DUE = {
  name: 'deliveries.claim-due',
  text: `
    WITH subs AS (
      SELECT w.id, w."organizationId" AS org, w."maxConcurrency" AS cap, w."inFlight" AS in_flight,
        w.status = 'active' AND (w."pausedUntil" IS NULL OR w."pausedUntil" <= now()) AS open,
        CASE WHEN w."rateLimit" IS NOT NULL THEN LEAST(
          GREATEST(1, w."rateLimit" / 2.0),
          COALESCE(w."rateTokens" + extract(epoch FROM now() - w."rateTokensAt") * w."rateLimit", w."rateLimit")
        ) END AS tokens
      FROM "Webhook" w
      WHERE w."organizationId" = ANY ($1::text[])
    ), orgs AS (
      SELECT org, max(cap) AS budget, sum(in_flight)::int AS in_flight FROM subs GROUP BY org
    ), candidates AS (
      SELECT d.id, d."nextAttemptAt", d.lapsed, s.id AS "webhookId", s.org,
        row_number() OVER (PARTITION BY s.id ORDER BY d."nextAttemptAt", d.id) AS n,
        s.in_flight + count(*) FILTER (WHERE NOT d.lapsed) OVER (PARTITION BY s.id ORDER BY d."nextAttemptAt", d.id) AS sub_load,
        s.cap, s.tokens
      FROM subs s CROSS JOIN LATERAL (
        SELECT d.id, d."nextAttemptAt", d."lockedUntil" IS NOT NULL AS lapsed FROM "Delivery" d
        WHERE d.status = 'pending' AND d."webhookId" = s.id AND d."nextAttemptAt" <= now()
          AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now()) AND (s.open OR d.test)
        ORDER BY d."nextAttemptAt"
        LIMIT LEAST(s.cap, $2)
      ) d
    ), ranked AS (
      SELECT c.id, c."webhookId", c."nextAttemptAt", c.lapsed, o.budget,
        o.in_flight + count(*) FILTER (WHERE NOT c.lapsed) OVER (PARTITION BY c.org ORDER BY c.sub_load, c."nextAttemptAt", c.id) AS org_load
      FROM candidates c JOIN orgs o USING (org)
      WHERE c.n <= COALESCE(floor(c.tokens), c.n) AND (c.lapsed OR c.sub_load <= c.cap)
    ), chosen AS (
      SELECT id, lapsed FROM ranked WHERE lapsed OR org_load <= budget ORDER BY org_load, "nextAttemptAt", id LIMIT $2
    ), claimed AS (
      UPDATE "Delivery" d
      SET "lockedUntil" = now() + $3::int * interval '1 millisecond', "updatedAt" = now()
      FROM chosen
      WHERE d.id = chosen.id AND (d.status = 'pending') IS TRUE AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now())
      RETURNING d.id, d."eventType", d.body, d.test, d."attemptsBeforeRecovery", d."attemptCount", d."webhookId", d."eventId", chosen.lapsed
    ), taken AS (
      SELECT "webhookId", count(*) AS taken, count(*) FILTER (WHERE NOT lapsed) AS fresh FROM claimed GROUP BY "webhookId"
    ), charging AS (
      SELECT w.id FROM "Webhook" w WHERE w.id IN (SELECT "webhookId" FROM taken) ORDER BY w.id FOR NO KEY UPDATE
    ), charged AS (
      UPDATE "Webhook" w
      SET "inFlight" = w."inFlight" + n.fresh,
        "rateTokens" = CASE WHEN s.tokens IS NULL THEN w."rateTokens" ELSE s.tokens - n.taken END,
        "rateTokensAt" = CASE WHEN s.tokens IS NULL THEN w."rateTokensAt" ELSE now() END
      FROM charging JOIN taken n ON n."webhookId" = charging.id JOIN subs s ON s.id = charging.id
      WHERE w.id = charging.id
    )
    SELECT c.id, c."eventType", c.body, c.test, c."attemptsBeforeRecovery", c."attemptCount", c."webhookId", w.url, w.secret,
      w."previousSecret", w."previousSecretExpiresAt", w."headersSealed", e."createdAt" AS "eventCreatedAt"
    FROM claimed c
    JOIN "Webhook" w ON w.id = c."webhookId"
    LEFT JOIN "OutboxEvent" e ON e.id = c."eventId"`,
};

/**
 * Leases to this worker for `claimMs` up to `limit` due deliveries, each for its next attempt, chosen
 * fairly under the subscriptions' and organizations' caps (docs/decisions.md#fair-delivery): at most `maxConcurrency`
 * attempts in flight per subscription across all workers, its `rateLimit` a second, none while it is
 * paused, and the organization served in turn with the others. A delivery is leased to one worker at
 * a time, so two workers never make the same attempt; a lease that lapses (its worker died) makes the
 * delivery due again.
 */
export async function claimDueDeliveries(pool: SqlPool, limit: number, claimMs: number): Promise<ClaimedDelivery[]> {
  const client = await pool.connect();
  try {
    // The claim reads through its indexes whatever the statistics say: planned while the deliveries
    // were few (a new install, a table analyzed empty), a sequential scan would read every delivery
    // of a subscription at each claim once they are many. And it is planned once per connection: left
    // to choose, Postgres planned the claim anew at every execution (its custom plans estimated
    // cheaper than the generic one, which is the same plan), about as long as running it.
    await client.query('BEGIN; SET LOCAL enable_seqscan = off; SET LOCAL plan_cache_mode = force_generic_plan');
    const { rows: organizations } = await client.query<{ id: string }>(LOCK_DUE_ORGANIZATIONS);
    const claimed =
      organizations.length === 0 ? [] : (await client.query<ClaimedDelivery>({ ...CLAIM_DUE, values: [organizations.map((o) => o.id), limit, claimMs] })).rows;
    await client.query('COMMIT');
    client.release();
    return claimed;
  } catch (err) {
    // A connection that failed mid-transaction is closed rather than returned to the pool.
    client.release(err instanceof Error ? err : true);
    throw err;
  }
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
  /** The receiver asked for a pause (429 or 503 with Retry-After): the subscription's attempts wait until then. */
  pauseWebhookUntil: Date | null;
}

// A record releases its delivery's lease and takes it off its subscription's `inFlight`. Of two
// records of one attempt (its lease lapsed and another worker made it again), the later is refused
// by the attempts' unique key, so a lease is never released twice. Records and claims lock the subscriptions they count
// in id order, so that they wait for each other rather than deadlock.
const RECORD = {
  name: 'deliveries.record',
  text: `
    WITH o AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS o(
        "attemptId" text, "deliveryId" text, "webhookId" text, attempt int, "attemptedAt" timestamptz, "responseStatus" int,
        "responseTimeMs" int, error text, "responseBody" text, "responseHeaders" jsonb, status "DeliveryStatus",
        "nextAttemptAt" timestamptz, "disableWebhook" boolean, "pauseWebhookUntil" timestamptz)
    ), attempt AS (
      INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "attemptedAt", "responseStatus", "responseTimeMs", error, "responseBody", "responseHeaders")
      SELECT "attemptId", "deliveryId", attempt, "attemptedAt", "responseStatus", "responseTimeMs", error, "responseBody", "responseHeaders" FROM o
    ), delivery AS (
      UPDATE "Delivery" d
      SET "attemptCount" = o.attempt, "lastAttemptAt" = o."attemptedAt", "lockedUntil" = NULL, status = o.status,
          "nextAttemptAt" = o."nextAttemptAt", "updatedAt" = now()
      FROM o
      WHERE d.id = o."deliveryId"
    ), webhook AS (
      SELECT "webhookId", bool_or("disableWebhook") AS disable, max("pauseWebhookUntil") AS "pauseUntil", count(*) AS released
      FROM o GROUP BY "webhookId"
    ), locking AS (
      SELECT w.id FROM "Webhook" w WHERE w.id IN (SELECT "webhookId" FROM o) ORDER BY w.id FOR NO KEY UPDATE
    )
    UPDATE "Webhook" w
    SET status = CASE WHEN webhook.disable AND w.status = 'active' THEN 'disabled' ELSE w.status END,
        "disabledReason" = CASE WHEN webhook.disable AND w.status = 'active' THEN 'delivery_failures' ELSE w."disabledReason" END,
        "disabledAt" = CASE WHEN webhook.disable AND w.status = 'active' THEN now() ELSE w."disabledAt" END,
        "pausedUntil" = GREATEST(w."pausedUntil", webhook."pauseUntil"),
        "inFlight" = GREATEST(0, w."inFlight" - webhook.released),
        "updatedAt" = CASE WHEN (webhook.disable AND w.status = 'active') OR webhook."pauseUntil" IS NOT NULL THEN now() ELSE w."updatedAt" END
    FROM webhook JOIN locking ON locking.id = webhook."webhookId"
    WHERE w.id = webhook."webhookId"`,
};

/**
 * Records attempts and what follows each, in one statement: the attempt row, the delivery settled,
 * rescheduled or failed (its lease released), after a last failed retry the subscription disabled, and
 * after a receiver's Retry-After the subscription paused.
 */
export async function recordAttempts(pool: SqlPool, records: AttemptRecord[]): Promise<void> {
  await pool.query({ ...RECORD, values: [JSON.stringify(records)] });
}

// Finished deliveries created before the window, oldest first, a bounded batch a statement. They are
// found through the primary key (delivery ids are ULIDs, so ids below the cutoff's boundary are the
// older deliveries): no index of their own, so neither the fan-out's inserts nor the claim's indexes
// pay for retention. Their attempts go with them (ON DELETE CASCADE, found by the attempts' unique
// (deliveryId, attemptNumber) key). Pending deliveries are kept whatever their age: the claims and
// recoveries still need them.
const DELETE_EXPIRED = {
  name: 'deliveries.delete-expired',
  text: `
    DELETE FROM "Delivery" WHERE id IN (
      SELECT id FROM "Delivery"
      WHERE id < $1 AND "createdAt" < $2 AND status <> 'pending'
      ORDER BY id
      LIMIT $3
    )`,
};

/**
 * Deletes up to `limit` finished deliveries created before `createdBefore`, with their attempts, in
 * one short statement (a bounded lock, and dead rows that vacuum returns to the inserts). Resolves
 * with how many were deleted.
 */
export async function deleteExpiredDeliveries(pool: SqlPool, createdBefore: Date, limit: number): Promise<number> {
  const { rowCount } = await pool.query({ ...DELETE_EXPIRED, values: [idBoundaryAt('delivery', createdBefore), createdBefore, limit] });
  return rowCount ?? 0;
}

// Through the claim's (status, webhookId, nextAttemptAt) index, and capped, so that a scrape during a
// backlog of millions costs a bounded read.
const COUNT_DUE = {
  name: 'deliveries.count-due',
  text: `
    SELECT count(*)::int AS due FROM (
      SELECT 1 FROM "Delivery"
      WHERE status = 'pending' AND "nextAttemptAt" <= now() AND ("lockedUntil" IS NULL OR "lockedUntil" < now())
      LIMIT $1
    ) d`,
};

/** Deliveries due now and leased to no worker, counted up to `cap`: the backlog the workers scale on. */
export async function countDueDeliveries(pool: SqlPool, cap: number): Promise<number> {
  const { rows } = await pool.query<{ due: number }>({ ...COUNT_DUE, values: [cap] });
  return rows[0]!.due;
}
