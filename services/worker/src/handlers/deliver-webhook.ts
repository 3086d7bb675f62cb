import { claimDeliveries, newId, recordAttempts, webhookSecretContext, type AttemptRecord, type ClaimedDelivery, type Db } from '@worktrack/db';
import type { DeliverWebhookPayload } from '@worktrack/queue';
import { buildDeliveryHeaders, type DeliveryResult } from '@worktrack/webhooks';
import type { AttemptSlots } from '../attempt-slots';
import type { DeliveryPolicy, WorkerDeps } from '../deps';
import { GroupCommit } from '../group-commit';
import { recordedResponse } from './attempt-response';
import { decideAttempt } from './decide-attempt';

function describeFailure(result: DeliveryResult): string | null {
  if (result.ok) return null;
  return result.message ? `${result.error}: ${result.message}` : result.error;
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

export type DeliverWebhook = (payload: DeliverWebhookPayload) => Promise<{ heldForMs: number } | undefined>;

export interface DeliveryHandler {
  /**
   * One attempt, in a slot: claim, sign, POST, record the attempt, then schedule the next one or
   * settle the delivery. Resolves with `heldForMs` when another worker holds this attempt: its job
   * must run again once that claim's lease has ended.
   */
  deliverWebhook: DeliverWebhook;
  /** The first attempt of a delivery the fan-out leased, in the slot it reserved, which this gives back. */
  attemptLeased(delivery: ClaimedDelivery): Promise<void>;
}

/**
 * The delivery handler. The claims and the attempt records of concurrent jobs are each written a
 * batch per statement (group commit), and a job completes only once its record has committed: a
 * crash between a POST and its record leaves the claim to lapse and the attempt to be made again,
 * a repeat, never a loss.
 */
export function deliveryHandler(deps: WorkerDeps, policy: DeliveryPolicy, slots: AttemptSlots): DeliveryHandler {
  const { db, jobs, deliverer } = deps;
  const claims = new GroupCommit<DeliverWebhookPayload, ClaimedDelivery | undefined>(async (wanted) => {
    const claimed = new Map((await claimDeliveries(deps.sql, wanted, policy.claimMs)).map((d) => [`${d.id}/${d.attemptCount + 1}`, d]));
    // Two jobs for the same attempt in one batch: the first makes it, the other finds it held.
    return wanted.map(({ deliveryId, attempt }) => {
      const key = `${deliveryId}/${attempt}`;
      const delivery = claimed.get(key);
      claimed.delete(key);
      return delivery;
    });
  });
  const records = new GroupCommit<AttemptRecord, void>(async (attempts) => {
    await recordAttempts(deps.sql, attempts);
    return attempts.map(() => undefined);
  });

  /** Signs, POSTs and records the claimed attempt, then schedules the next one if it failed. */
  async function makeAttempt(delivery: ClaimedDelivery, attempt: number): Promise<void> {
    const attemptedAt = new Date();
    const rotationActive = delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt > attemptedAt;
    // Secrets are sealed at rest (DECISIONS §15): opened here, for this signature only.
    const open = (sealed: string) => deps.secrets.open(sealed, webhookSecretContext(delivery.webhookId));
    const headers = buildDeliveryHeaders({
      secret: open(delivery.secret),
      previousSecret: rotationActive && delivery.previousSecret ? open(delivery.previousSecret) : null,
      deliveryId: delivery.id,
      eventType: delivery.eventType,
      body: delivery.body,
      now: attemptedAt,
    });
    const result = await deliverer.deliver({ url: delivery.url, body: delivery.body, headers });

    // A recovered delivery gets a fresh set of attempts: the schedule counts from the recovery.
    const decision = decideAttempt(result, { number: attempt - delivery.attemptsBeforeRecovery, test: delivery.test }, policy);
    const disableWebhook = decision.kind === 'fail' && decision.disableWebhook;
    const response = recordedResponse(result);
    await records.submit({
      attemptId: newId('attempt'),
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      attempt,
      attemptedAt,
      responseStatus: result.status,
      responseTimeMs: result.responseTimeMs,
      error: describeFailure(result),
      responseBody: response.body,
      responseHeaders: response.headers,
      status: STATUS_AFTER[decision.kind],
      nextAttemptAt: decision.kind === 'retry' ? new Date(Date.now() + decision.delayMs) : null,
      disableWebhook,
    });
    const outcome = OUTCOME_OF[decision.kind];
    deps.metrics.observe(outcome, result.responseTimeMs, delivery.eventCreatedAt);
    deps.logger.info(
      {
        deliveryId: delivery.id,
        webhookId: delivery.webhookId,
        event: delivery.eventType,
        attempt,
        status: result.status,
        durationMs: result.responseTimeMs,
        outcome,
      },
      'delivery attempt',
    );
    if (decision.kind === 'retry') await jobs.scheduleDeliveries([{ deliveryId: delivery.id, attempt: attempt + 1, delayMs: decision.delayMs }]);
    if (disableWebhook) deps.logger.warn({ webhookId: delivery.webhookId, deliveryId: delivery.id }, 'subscription disabled after its last retry failed');
  }

  return {
    deliverWebhook: (payload) =>
      slots.run(async () => {
        const delivery = await claims.submit(payload);
        if (delivery) {
          await makeAttempt(delivery, payload.attempt);
          return undefined;
        }
        const ms = await heldForMs(db, payload);
        return ms === undefined ? undefined : { heldForMs: ms };
      }),
    async attemptLeased(delivery) {
      try {
        await makeAttempt(delivery, 1);
      } finally {
        slots.release();
      }
    },
  };
}
