-- Subscriber controls (docs/decisions.md#subscriber-controls): the event's project, recorded when it
-- is written; a subscription's projects, filter (as given, and compiled to a jsonpath) and headers
-- (masked for the record, and sealed like its secret).
-- The four-argument "Webhook_wants" of 20261126060000_one_subscription_predicate goes first: a
-- function whose SQL-standard body (RETURN ...) takes a table's row type makes Postgres refuse to add
-- a column with a default to that table. Its replacement below has a string body, which records no
-- such dependency, so later migrations can alter "Webhook" and "OutboxEvent" freely.
DROP FUNCTION IF EXISTS "Webhook_wants"("Webhook", text, "Mode", text);

ALTER TABLE "OutboxEvent" ADD COLUMN     "projectId" TEXT;

ALTER TABLE "Webhook" ADD COLUMN     "filter" JSONB,
ADD COLUMN     "filterPath" jsonpath,
ADD COLUMN     "headers" JSONB,
ADD COLUMN     "headersSealed" TEXT,
ADD COLUMN     "projectIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- The one definition of "this subscription wants this event": the same organization and mode,
-- active, the event's type or `*` listed, the event's project among its projects (when it names
-- any), and its filter matching the event's data. The outbox trigger (an event no subscription
-- wants is written dispatched), the fan-out's read of an event's subscriptions and recovery all call
-- it. A SQL function of one expression: the planner inlines it, so each keeps its index scans. The
-- compiled filter never yields NULL (every comparison is guarded by the value's type), IS TRUE all
-- the same.
CREATE FUNCTION "Webhook_wants"(w "Webhook", e "OutboxEvent") RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT w."organizationId" = e."organizationId" AND w.mode = e.mode AND w.status = 'active'
    AND (e.type = ANY (w.events) OR '*' = ANY (w.events))
    AND (coalesce(cardinality(w."projectIds"), 0) = 0 OR e."projectId" = ANY (w."projectIds"))
    AND (w."filterPath" IS NULL OR (e.data @@ w."filterPath") IS TRUE)
$$;

CREATE OR REPLACE FUNCTION "OutboxEvent_unsubscribed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."dispatchedAt" IS NULL AND NOT EXISTS (SELECT 1 FROM "Webhook" w WHERE "Webhook_wants"(w, NEW)) THEN
    NEW."dispatchedAt" := now();
  END IF;
  RETURN NEW;
END
$$;
