-- An event that no active subscription wants when it is written is written dispatched: there is
-- nothing to fan out, so the API does not publish it and the worker never loads it. The same test
-- as the fan-out's (same organization and mode, the type or `*` listed); a subscription made after
-- the event was written does not receive it, as it would not once the event was fanned out.
CREATE FUNCTION "OutboxEvent_unsubscribed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."dispatchedAt" IS NULL AND NOT EXISTS (
    SELECT 1 FROM "Webhook" w
    WHERE w."organizationId" = NEW."organizationId" AND w.mode = NEW.mode AND w.status = 'active'
      AND (NEW.type = ANY (w.events) OR '*' = ANY (w.events))
  ) THEN
    NEW."dispatchedAt" := now();
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "OutboxEvent_unsubscribed" BEFORE INSERT ON "OutboxEvent"
  FOR EACH ROW EXECUTE FUNCTION "OutboxEvent_unsubscribed"();
