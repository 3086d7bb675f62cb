import { newId, type Db } from '@worktrack/db';
import type { DeliverWebhookPayload } from '@worktrack/queue';
import { buildDeliveryHeaders, type DeliveryResult } from '@worktrack/webhooks';
import type { DeliveryPolicy, WorkerDeps } from '../deps';
import { recordedResponse } from './attempt-response';
import { decideAttempt } from './decide-attempt';

interface ClaimedDelivery {
  id: string;
  eventType: string;
  body: string;
  test: boolean;
  attemptsBeforeRecovery: number;
  webhookId: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /** Null for test deliveries, which belong to no event. */
  eventCreatedAt: Date | null;
}

/**
 * Takes a delivery for one attempt: only while it is pending, its subscription active, the attempt
 * the next one, and no other worker holds it. Stale or duplicate jobs therefore do nothing.
 */
async function claim(db: Db, { deliveryId, attempt }: DeliverWebhookPayload, claimMs: number): Promise<ClaimedDelivery | undefined> {
  const rows = await db.$queryRaw<ClaimedDelivery[]>`
    UPDATE "Delivery" d
    SET "lockedUntil" = now() + ${claimMs} * interval '1 millisecond', "updatedAt" = now()
    FROM "Webhook" w
    WHERE d.id = ${deliveryId} AND w.id = d."webhookId" AND (w.status = 'active' OR d.test)
      AND d.status = 'pending' AND d."attemptCount" = ${attempt - 1}
      AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now())
    RETURNING d.id, d."eventType", d.body, d.test, d."attemptsBeforeRecovery", d."webhookId", w.url, w.secret, w."previousSecret", w."previousSecretExpiresAt",
      (SELECT "createdAt" FROM "OutboxEvent" WHERE id = d."eventId") AS "eventCreatedAt"`;
  return rows[0];
}

function describeFailure(result: DeliveryResult): string | null {
  if (result.ok) return null;
  return result.message ? `${result.error}: ${result.message}` : result.error;
}

interface AttemptOutcome {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  attemptedAt: Date;
  result: DeliveryResult;
  status: 'succeeded' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  disableWebhook: boolean;
}

/**
 * Records the attempt, settles or reschedules the delivery and, after the last retry, disables
 * the subscription, in one statement (one round trip where a transaction would take five).
 */
async function recordAttempt(db: Db, o: AttemptOutcome): Promise<void> {
  const response = recordedResponse(o.result);
  await db.$executeRaw`
    WITH attempt AS (
      INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "attemptedAt", "responseStatus", "responseTimeMs", error, "responseBody", "responseHeaders")
      VALUES (${newId('attempt')}, ${o.deliveryId}, ${o.attempt}, ${o.attemptedAt}, ${o.result.status}::int, ${o.result.responseTimeMs}, ${describeFailure(o.result)},
              ${response.body}, ${response.headers === null ? null : JSON.stringify(response.headers)}::jsonb)
    ), delivery AS (
      UPDATE "Delivery"
      SET "attemptCount" = ${o.attempt}, "lastAttemptAt" = ${o.attemptedAt}, "lockedUntil" = NULL,
          status = ${o.status}::"DeliveryStatus", "nextAttemptAt" = ${o.nextAttemptAt}, "updatedAt" = now()
      WHERE id = ${o.deliveryId}
    )
    UPDATE "Webhook"
    SET status = 'disabled', "disabledReason" = 'delivery_failures', "disabledAt" = now(), "updatedAt" = now()
    WHERE ${o.disableWebhook} AND id = ${o.webhookId} AND status = 'active'`;
}

/**
 * How long another worker's claim on this very attempt still runs; undefined when nobody holds it
 * (it was made or is not due). The holder may have been killed mid-attempt.
 */
async function heldForMs(db: Db, { deliveryId, attempt }: DeliverWebhookPayload): Promise<number | undefined> {
  // Measured by the database's clock, which set the lease, so the worker's clock cannot skew it.
  const rows = await db.$queryRaw<{ ms: number }[]>`
    SELECT ceil(extract(epoch FROM "lockedUntil" - now()) * 1000)::int AS ms
    FROM "Delivery"
    WHERE id = ${deliveryId} AND status = 'pending' AND "attemptCount" = ${attempt - 1} AND "lockedUntil" >= now()`;
  return rows[0]?.ms;
}

const STATUS_AFTER = { settle: 'succeeded', retry: 'pending', fail: 'failed' } as const;
const OUTCOME_OF = { settle: 'succeeded', retry: 'retrying', fail: 'failed' } as const;

/**
 * One attempt: sign, POST, record the attempt, then schedule the next one or settle the delivery.
 * Resolves with `heldForMs` when another worker holds this attempt: its job must run again once
 * that claim's lease has ended.
 */
export async function deliverWebhook(deps: WorkerDeps, policy: DeliveryPolicy, payload: DeliverWebhookPayload): Promise<{ heldForMs: number } | undefined> {
  const { db, jobs, deliverer } = deps;
  const delivery = await claim(db, payload, policy.claimMs);
  if (!delivery) {
    const ms = await heldForMs(db, payload);
    return ms === undefined ? undefined : { heldForMs: ms };
  }

  const attemptedAt = new Date();
  const rotationActive = delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt > attemptedAt;
  const headers = buildDeliveryHeaders({
    secret: delivery.secret,
    previousSecret: rotationActive ? delivery.previousSecret : null,
    deliveryId: delivery.id,
    eventType: delivery.eventType,
    body: delivery.body,
    now: attemptedAt,
  });
  const result = await deliverer.deliver({ url: delivery.url, body: delivery.body, headers });

  const { attempt } = payload;
  // A recovered delivery gets a fresh set of attempts: the schedule counts from the recovery.
  const decision = decideAttempt(result, { number: attempt - delivery.attemptsBeforeRecovery, test: delivery.test }, policy);
  const disableWebhook = decision.kind === 'fail' && decision.disableWebhook;
  await recordAttempt(db, {
    deliveryId: delivery.id,
    webhookId: delivery.webhookId,
    attempt,
    attemptedAt,
    result,
    status: STATUS_AFTER[decision.kind],
    nextAttemptAt: decision.kind === 'retry' ? new Date(Date.now() + decision.delayMs) : null,
    disableWebhook,
  });
  const outcome = OUTCOME_OF[decision.kind];
  deps.metrics.observe(outcome, result.responseTimeMs, delivery.eventCreatedAt);
  deps.logger.info(
    { deliveryId: delivery.id, webhookId: delivery.webhookId, event: delivery.eventType, attempt, status: result.status, durationMs: result.responseTimeMs, outcome },
    'delivery attempt',
  );
  if (decision.kind === 'retry') await jobs.scheduleDeliveries([{ deliveryId: delivery.id, attempt: attempt + 1, delayMs: decision.delayMs }]);
  if (disableWebhook) deps.logger.warn({ webhookId: delivery.webhookId, deliveryId: delivery.id }, 'subscription disabled after its last retry failed');
}
