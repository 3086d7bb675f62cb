-- The record of attempts as a function ("Delivery_record", the statement the worker sent before,
-- unchanged), so that a second function ("Delivery_record_and_claim") can record a batch and then,
-- in the same transaction, claim as "Delivery_claim" does: a slot that a record frees is refilled
-- in the record's own round trip, with no claim of its own (docs/decisions.md#fair-delivery). Each
-- rule keeps one definition: the combined function calls the two.

-- A record releases its delivery's lease and takes it off its subscription's `inFlight`; a delivery it
-- settles or fails leaves its resource's order (docs/decisions.md#ordered-delivery), releasing the next. Of two
-- records of one attempt (its lease lapsed and another worker made it again), the later is refused
-- by the attempts' unique key, so a lease is never released twice. The deliveries are found by primary key through
-- their ids' array: joined only to the records, a generic plan made while the table was small (a fresh
-- database, statistics not taken since) scanned the whole table at every record once it had grown (a saturated
-- worker on a fresh database read 1.8 million rows for 7,000 deliveries). Records and claims lock the subscriptions they count
-- in id order, so that they wait for each other rather than deadlock over subscriptions; over a subscription and its
-- deliveries they still can, and the worker then runs the record again.
CREATE FUNCTION "Delivery_record"(recorded jsonb, "recordedIds" text[])
  RETURNS void
  LANGUAGE plpgsql VOLATILE
AS $$
#variable_conflict use_column
BEGIN
  WITH o AS (
    SELECT * FROM jsonb_to_recordset(recorded) AS o(
      "attemptId" text, "deliveryId" text, "webhookId" text, attempt int, "attemptedAt" timestamptz, "responseStatus" int,
      "responseTimeMs" int, error text, "responseBody" text, "responseHeaders" jsonb, "requestHeaders" jsonb, status "DeliveryStatus",
      "nextAttemptAt" timestamptz, "disableWebhook" boolean, "pauseWebhookUntil" timestamptz, traceparent text)
  ), attempt AS (
    INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "attemptedAt", "responseStatus", "responseTimeMs", error, "responseBody", "responseHeaders", "requestHeaders", traceparent)
    SELECT "attemptId", "deliveryId", attempt, "attemptedAt", "responseStatus", "responseTimeMs", error, "responseBody", "responseHeaders", "requestHeaders", traceparent FROM o
  ), delivery AS (
    UPDATE "Delivery" d
    SET "attemptCount" = o.attempt, "lastAttemptAt" = o."attemptedAt", "lockedUntil" = NULL, status = o.status,
        "nextAttemptAt" = o."nextAttemptAt", "updatedAt" = now(),
        "resourceId" = CASE WHEN o.status = 'pending' THEN d."resourceId" END, position = CASE WHEN o.status = 'pending' THEN d.position END
    FROM o
    WHERE d.id = ANY ("recordedIds") AND d.id = o."deliveryId"
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
  WHERE w.id = webhook."webhookId";
END $$;

-- Records the attempts, then claims up to "limit" deliveries: the claim's statements take their
-- snapshots after the record's, so they count its leases released and see what its attempts
-- settled (an ordered resource's next delivery, a subscription paused or disabled). One transaction:
-- a deadlock's victim is rolled back whole, and run again whole. The result is the claim's.
CREATE FUNCTION "Delivery_record_and_claim"(recorded jsonb, "recordedIds" text[], "limit" int, "claimMs" int)
  RETURNS TABLE (
    id text, "eventType" text, body text, test boolean, "attemptsBeforeRecovery" int, "attemptCount" int, "webhookId" text,
    url text, secret text, "previousSecret" text, "previousSecretExpiresAt" timestamptz, "headersSealed" text,
    "eventCreatedAt" timestamptz, "leasedUntil" timestamptz, ordered boolean, "organizationId" text, "eventTraceparent" text,
    "lastAttemptTraceparent" text, "moreDue" boolean
  )
  LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  PERFORM "Delivery_record"(recorded, "recordedIds");
  RETURN QUERY SELECT * FROM "Delivery_claim"("limit", "claimMs");
END $$;
