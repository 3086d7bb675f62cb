-- The claim of 20261127200000_claim_returns_trace_context, reading a retried delivery's last attempt
-- (the span its next attempt links to, docs/decisions.md#traces) in a subquery of each claimed row, which
-- can only probe the attempts' unique (deliveryId, attemptNumber) key with that row's values, and is not
-- run at all for a first attempt. As a join, its plan, generic and made while the attempts were few (a
-- worker started on a new database, statistics not taken since), read the whole key for each delivery
-- claimed: with some 17,000 attempts a claim took 30-220 ms, and Postgres spent four times as much a
-- delivery. Only that lookup changes.
CREATE OR REPLACE FUNCTION "Delivery_claim"("limit" int, "claimMs" int)
  RETURNS TABLE (
    id text, "eventType" text, body text, test boolean, "attemptsBeforeRecovery" int, "attemptCount" int, "webhookId" text,
    url text, secret text, "previousSecret" text, "previousSecretExpiresAt" timestamptz, "headersSealed" text,
    "eventCreatedAt" timestamptz, "leasedUntil" timestamptz, ordered boolean, "organizationId" text, "eventTraceparent" text,
    "lastAttemptTraceparent" text, "moreDue" boolean
  )
  LANGUAGE plpgsql VOLATILE
  -- Through the indexes whatever the statistics say (planned while the deliveries were few, a
  -- sequential scan would read every delivery of a subscription at each claim once they are many);
  -- one generic plan (left to choose, Postgres planned the claim anew at every execution, about as
  -- long as running it); no JIT (the generic plan's estimates over a backlog can pass
  -- jit_above_cost, and compiling costs milliseconds where the claim takes a fraction of one).
  SET enable_seqscan = off
  SET plan_cache_mode = force_generic_plan
  SET jit = off
AS $$
#variable_conflict use_column
DECLARE
  organizations text[];
  leased_rows int;
BEGIN
  -- The organizations with a delivery due and unleased that may be sent now (its subscription
  -- active and not paused, or a test delivery). The subscriptions with pending deliveries are
  -- found by a skip scan of the (status, webhookId, nextAttemptAt) index, so a backlog of
  -- thousands costs one probe per subscription, not a row each; the probe for a due delivery is a
  -- LATERAL ... LIMIT 1 on the same index (an EXISTS may be planned as a hash of every pending
  -- delivery when the statistics are old). Locking the organizations (NO KEY UPDATE: tasks
  -- inserted meanwhile still take their key share) makes each one's claims take turns across
  -- workers, so its counts of attempts in flight, read by the next statement, cannot be raced past
  -- its caps; SKIP LOCKED leaves an organization another worker is claiming for to that worker.
  SELECT array_agg(locked.id) INTO organizations FROM (
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
    FOR NO KEY UPDATE SKIP LOCKED
  ) locked;
  IF organizations IS NULL THEN
    RETURN;
  END IF;

  -- Then, with the organizations locked and a fresh snapshot: each subscription may take due
  -- deliveries up to its maxConcurrency less its attempts in flight (`inFlight`: its deliveries
  -- leased, kept by this statement and the record), and up to the whole tokens of its rate limit's
  -- bucket (refilled at rateLimit a second, holding half a second's worth, at least one: the
  -- workers claim at least every quarter second while they have free slots, so none is lost); each
  -- organization up to the largest maxConcurrency of its subscriptions less its own attempts in
  -- flight, so that fifty busy subscriptions get it no more than one. A delivery whose lease
  -- lapsed (its worker died) is still counted in flight, so taking it again takes no more of
  -- either cap. Of what may be taken, the least loaded organization goes first, and within it the
  -- least loaded subscription (load: attempts in flight plus those taken before in this claim),
  -- then the longest due: a weighted round robin by organization, then by subscription. A
  -- subscription contributes at most the claim's limit, so each reads no more than that many of
  -- its due deliveries, however large its cap. The claimed deliveries are leased for claimMs, and
  -- the counts and buckets charged. Each subscription's due deliveries are read in the index's
  -- order ((nextAttemptAt, id), so no sort of its whole backlog), and the lease finds its rows by
  -- primary key (`(...) IS TRUE` keeps the planner from scanning the pending ones through the
  -- status index when its statistics are old); it sets only lockedUntil, which no index holds, so
  -- it is a HOT update.
  -- A subscription that orders by resource (docs/decisions.md#ordered-delivery) offers, of its
  -- deliveries with a resource, only the one of lowest position among its resource's pending ones,
  -- and none while another of them is leased (a recovery or a switch of mode may put an earlier one
  -- behind one in flight): one at a time, in commit order. A retried one stays pending, so it holds
  -- back its resource alone; one that fails for good leaves the pending ones, releasing the next.
  -- The probe reads the (webhookId, resourceId, position) index of ordered deliveries, which holds
  -- only pending ones (a record clears a delivery's resource as it leaves pending) and none of an
  -- unordered subscription; it names no status, so no other index serves it (on the status index,
  -- planned with statistics taken when nothing was pending, it read every pending delivery for each
  -- candidate). Unordered subscriptions take the first branch,
  -- the claim as before (the other branch's condition is a one-time filter, never run for them).
  RETURN QUERY
    WITH subs AS (
      SELECT w.id, w."organizationId" AS org, w."maxConcurrency" AS cap, w."inFlight" AS in_flight,
        w.status = 'active' AND (w."pausedUntil" IS NULL OR w."pausedUntil" <= now()) AS open,
        w.ordering = 'resource' AS ordered,
        CASE WHEN w."rateLimit" IS NOT NULL THEN LEAST(
          GREATEST(1, w."rateLimit" / 2.0),
          COALESCE(w."rateTokens" + extract(epoch FROM now() - w."rateTokensAt") * w."rateLimit", w."rateLimit")
        ) END AS tokens
      FROM "Webhook" w
      WHERE w."organizationId" = ANY (organizations)
    ), orgs AS (
      SELECT org, max(cap) AS budget, sum(in_flight)::int AS in_flight FROM subs GROUP BY org
    ), candidates AS (
      SELECT d.id, d."nextAttemptAt", d.lapsed, s.id AS "webhookId", s.org,
        row_number() OVER (PARTITION BY s.id ORDER BY d."nextAttemptAt", d.id) AS n,
        s.in_flight + count(*) FILTER (WHERE NOT d.lapsed) OVER (PARTITION BY s.id ORDER BY d."nextAttemptAt", d.id) AS sub_load,
        s.cap, s.tokens
      FROM subs s CROSS JOIN LATERAL (
        (SELECT d.id, d."nextAttemptAt", d."lockedUntil" IS NOT NULL AS lapsed FROM "Delivery" d
        WHERE NOT s.ordered AND d.status = 'pending' AND d."webhookId" = s.id AND d."nextAttemptAt" <= now()
          AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now()) AND (s.open OR d.test)
        ORDER BY d."nextAttemptAt", d.id
        LIMIT LEAST(s.cap, "limit"))
        UNION ALL
        (SELECT d.id, d."nextAttemptAt", d."lockedUntil" IS NOT NULL AS lapsed FROM "Delivery" d
        WHERE s.ordered AND d.status = 'pending' AND d."webhookId" = s.id AND d."nextAttemptAt" <= now()
          AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now()) AND (s.open OR d.test)
          AND (d."resourceId" IS NULL OR NOT EXISTS (
            SELECT 1 FROM "Delivery" h
            WHERE h."webhookId" = s.id AND h."resourceId" = d."resourceId" AND (h.position < d.position OR h."lockedUntil" >= now())
          ))
        ORDER BY d."nextAttemptAt", d.id
        LIMIT LEAST(s.cap, "limit"))
      ) d
    ), ranked AS (
      SELECT c.id, c."webhookId", c."nextAttemptAt", c.lapsed, o.budget,
        o.in_flight + count(*) FILTER (WHERE NOT c.lapsed) OVER (PARTITION BY c.org ORDER BY c.sub_load, c."nextAttemptAt", c.id) AS org_load
      FROM candidates c JOIN orgs o USING (org)
      WHERE c.n <= COALESCE(floor(c.tokens), c.n) AND (c.lapsed OR c.sub_load <= c.cap)
    ), chosen AS (
      SELECT id, lapsed, row_number() OVER (ORDER BY org_load, "nextAttemptAt", id) AS turn
      FROM ranked WHERE lapsed OR org_load <= budget ORDER BY turn LIMIT "limit"
    ), claimed AS (
      UPDATE "Delivery" d
      SET "lockedUntil" = now() + "claimMs" * interval '1 millisecond', "updatedAt" = now()
      FROM chosen
      WHERE d.id = chosen.id AND (d.status = 'pending') IS TRUE AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now())
      RETURNING d.id, d."eventType", d.body, d.test, d."attemptsBeforeRecovery", d."attemptCount", d."webhookId", d."eventId", d."lockedUntil",
        d."resourceId" IS NOT NULL AS ordered, chosen.lapsed, chosen.turn
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
      w."previousSecret", w."previousSecretExpiresAt", w."headersSealed", e."createdAt" AS "eventCreatedAt", c."lockedUntil" AS "leasedUntil", c.ordered,
      w."organizationId", e.traceparent AS "eventTraceparent",
      (SELECT a.traceparent FROM "DeliveryAttempt" a
       WHERE c."attemptCount" > 0 AND a."deliveryId" = c.id AND a."attemptNumber" = c."attemptCount") AS "lastAttemptTraceparent",
      EXISTS (SELECT 1 FROM candidates left_due WHERE NOT EXISTS (SELECT 1 FROM claimed k WHERE k.id = left_due.id) OR left_due.n = LEAST(left_due.cap, "limit")) AS "moreDue"
    FROM claimed c
    JOIN "Webhook" w ON w.id = c."webhookId"
    LEFT JOIN "OutboxEvent" e ON e.id = c."eventId"
    ORDER BY c.turn;

  -- The organizations were locked for their due deliveries: if none was taken, they are still due.
  GET DIAGNOSTICS leased_rows = ROW_COUNT;
  IF leased_rows = 0 THEN
    "moreDue" := true;
    RETURN NEXT;
  END IF;
END $$;
