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
  /** The end of this worker's lease: a release names it, so that it never ends another worker's. */
  leasedUntil: Date;
  /** Its resource's next delivery waits for it (docs/decisions.md#ordered-delivery): its attempt's end may let that one be claimed. */
  ordered: boolean;
  /** What its attempt's span continues and links to (docs/decisions.md#traces): */
  organizationId: string;
  /** the change that wrote its event; null for a test send or an untraced change; */
  eventTraceparent: string | null;
  /** its latest attempt's span, which a retry or a redelivery links to; null before the first. */
  lastAttemptTraceparent: string | null;
}

// The claim is one function (`"Delivery_claim"`, prisma/migrations/20261126130000_claim_in_one_round_trip,
// with ordered delivery's rule in 20261127050000_ordered_delivery, ties in id order in 20261127120000_claim_ties_in_id_order
// and the attempts' trace contexts in 20261127200000_claim_returns_trace_context), so that it costs one round trip: its first statement locks the organizations with deliveries due,
// its second, with a fresh snapshot, leases their deliveries under the caps. Each row says whether
// some are still due; a claim that takes nothing says it in a row with no delivery.
const CLAIM = { name: 'deliveries.claim', text: 'SELECT * FROM "Delivery_claim"($1, $2)' };

export interface Claim {
  /** In the order they were chosen, the turns of the round robin. */
  deliveries: ClaimedDelivery[];
  /** Deliveries of the organizations claimed for are still due, held back by a cap, a rate limit or the limit. */
  moreDue: boolean;
}

/**
 * Leases to this worker for `claimMs` up to `limit` due deliveries, each for its next attempt, chosen
 * fairly under the subscriptions' and organizations' caps (docs/decisions.md#fair-delivery): at most `maxConcurrency`
 * attempts in flight per subscription across all workers, its `rateLimit` a second, none while it is
 * paused, and the organization served in turn with the others. A delivery is leased to one worker at
 * a time, so two workers never make the same attempt; a lease that lapses (its worker died) makes the
 * delivery due again. Of a subscription that orders by resource, only the next delivery of each
 * resource is due, and none while another of its resource is leased.
 */
export async function claimDueDeliveries(pool: SqlPool, limit: number, claimMs: number): Promise<Claim> {
  return claimOf((await pool.query<ClaimRow>({ ...CLAIM, values: [limit, claimMs] })).rows);
}

type ClaimRow = (ClaimedDelivery | { id: null }) & { moreDue: boolean };

function claimOf(rows: ClaimRow[]): Claim {
  const deliveries: ClaimedDelivery[] = [];
  for (const { moreDue: _, ...row } of rows) if (row.id !== null) deliveries.push(row as ClaimedDelivery);
  return { deliveries, moreDue: rows.some((row) => row.moreDue) };
}

// Ends leases that were never used for an attempt (the worker is closing, or a claimed delivery waited
// too long for a slot), only where the lease is still the one the claim returned, and takes them off
// their subscriptions' `inFlight` as a record would. Its rows are found by primary key, as the record's (`(...) IS
// TRUE`: not by a scan of the pending index, which the status would allow).
const RELEASE = {
  name: 'deliveries.release',
  text: `
    WITH released AS (
      UPDATE "Delivery" d SET "lockedUntil" = NULL, "updatedAt" = now()
      FROM jsonb_to_recordset($1::jsonb) AS r(id text, "leasedUntil" timestamptz)
      WHERE d.id = ANY ($2::text[]) AND d.id = r.id AND (d.status = 'pending') IS TRUE AND d."lockedUntil" = r."leasedUntil"
      RETURNING d."webhookId"
    ), counted AS (
      SELECT "webhookId", count(*) AS released FROM released GROUP BY "webhookId"
    ), locking AS (
      SELECT w.id FROM "Webhook" w WHERE w.id IN (SELECT "webhookId" FROM counted) ORDER BY w.id FOR NO KEY UPDATE
    )
    UPDATE "Webhook" w SET "inFlight" = GREATEST(0, w."inFlight" - counted.released)
    FROM counted JOIN locking ON locking.id = counted."webhookId"
    WHERE w.id = counted."webhookId"`,
};

/** SQLSTATE of a statement Postgres rolled back to break a deadlock. */
const DEADLOCK_DETECTED = '40P01';
const DEADLOCK_RETRIES = 5;

/**
 * Runs a statement again when Postgres chose it as a deadlock's victim (and so rolled all of it
 * back). A claim locks a subscription's row, then its deliveries'; a record or a release locks its
 * deliveries' rows, then their subscriptions': under load the two meet in opposite orders. A record
 * lost that way would leave its attempt to be made again once the lease lapsed, a repeat at the
 * receiver; a claim lost that way is simply claimed again at the next wake.
 */
async function retryingDeadlocks<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if ((err as { code?: string }).code !== DEADLOCK_DETECTED || attempt === DEADLOCK_RETRIES) throw err;
    }
  }
}

/** Gives back claimed deliveries without attempting them: each is due again at once, for any worker. */
export async function releaseDeliveries(pool: SqlPool, deliveries: Pick<ClaimedDelivery, 'id' | 'leasedUntil'>[]): Promise<void> {
  const values = [JSON.stringify(deliveries.map(({ id, leasedUntil }) => ({ id, leasedUntil }))), deliveries.map(({ id }) => id)];
  await retryingDeadlocks(() => pool.query({ ...RELEASE, values }));
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
  /** The headers sent, the subscription's own values masked. */
  requestHeaders?: Record<string, string> | null;
  /** The delivery's status after it. */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** The last retry failed: the subscription is disabled. */
  disableWebhook: boolean;
  /** The receiver asked for a pause (429 or 503 with Retry-After): the subscription's attempts wait until then. */
  pauseWebhookUntil: Date | null;
  /** The attempt's span, which the next attempt links to; none when not traced. */
  traceparent?: string | null;
}

// The record is one function (`"Delivery_record"`, prisma/migrations/20261127210000_record_and_claim): it
// releases each delivery's lease and takes it off its subscription's `inFlight`; a delivery it settles or
// fails leaves its resource's order (docs/decisions.md#ordered-delivery), releasing the next. Of two records of one
// attempt (its lease lapsed and another worker made it again), the later is refused by the attempts' unique key,
// so a lease is never released twice. The deliveries are found by primary key through their ids' array ($2).
// Records and claims lock the subscriptions they count in id order, so that they wait for each other rather than
// deadlock over subscriptions; over a subscription and its deliveries they still can, and the record is then run
// again (retryingDeadlocks).
const RECORD = { name: 'deliveries.record', text: 'SELECT "Delivery_record"($1::jsonb, $2::text[])' };

// The record, then the claim, in one transaction (`"Delivery_record_and_claim"`, the same migration): the slots
// the attempts free are refilled in the record's round trip, with no claim of its own.
const RECORD_AND_CLAIM = { name: 'deliveries.record-and-claim', text: 'SELECT * FROM "Delivery_record_and_claim"($1::jsonb, $2::text[], $3, $4)' };

/**
 * Records attempts and what follows each, in one statement: the attempt row, the delivery settled,
 * rescheduled or failed (its lease released), after a last failed retry the subscription disabled, and
 * after a receiver's Retry-After the subscription paused.
 */
export async function recordAttempts(pool: SqlPool, records: AttemptRecord[]): Promise<void> {
  const values = [JSON.stringify(records), records.map((record) => record.deliveryId)];
  await retryingDeadlocks(() => pool.query({ ...RECORD, values }));
}

/**
 * Records attempts as `recordAttempts` does, then, in the same transaction, claims as `claimDueDeliveries`
 * does: the claim counts the leases the record released, so the slots its attempts held are taken
 * again in this round trip. A deadlock's victim is run again whole; an error leaves neither done.
 */
export async function recordAttemptsAndClaim(pool: SqlPool, records: AttemptRecord[], limit: number, claimMs: number): Promise<Claim> {
  const values = [JSON.stringify(records), records.map((record) => record.deliveryId), limit, claimMs];
  return claimOf((await retryingDeadlocks(() => pool.query<ClaimRow>({ ...RECORD_AND_CLAIM, values }))).rows);
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

// Through the claim's index of pending deliveries (webhookId, nextAttemptAt), and capped, so that a scrape during a
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
