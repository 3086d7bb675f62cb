-- The one definition of "this subscription wants this event": the same organization and mode, active,
-- and the event's type or `*` listed. The outbox trigger (an event no subscription wants is written
-- dispatched) and the fan-out's read of an event's subscriptions (`undispatchedEvents`) both call it.
-- A SQL function of one expression: the planner inlines it, so each keeps its index scans.
CREATE FUNCTION "Webhook_wants"(w "Webhook", "organizationId" text, mode "Mode", type text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN w."organizationId" = "organizationId" AND w.mode = mode AND w.status = 'active'
    AND (type = ANY (w.events) OR '*' = ANY (w.events));

CREATE OR REPLACE FUNCTION "OutboxEvent_unsubscribed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."dispatchedAt" IS NULL AND NOT EXISTS (
    SELECT 1 FROM "Webhook" w WHERE "Webhook_wants"(w, NEW."organizationId", NEW.mode, NEW.type)
  ) THEN
    NEW."dispatchedAt" := now();
  END IF;
  RETURN NEW;
END
$$;
