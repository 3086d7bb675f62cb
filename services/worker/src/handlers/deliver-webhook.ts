import { newId, webhookHeadersContext, webhookSecretContext, type AttemptRecord, type ClaimedDelivery } from '@worktrack/db';
import { currentTraceparent, setSpanAttributes } from '@worktrack/telemetry';
import { buildDeliveryHeaders, maskHeaderValue } from '@worktrack/webhooks';
import type { DeliveryResult } from '@worktrack/webhooks/deliver';
import type { DeliveryPolicy, WorkerDeps } from '../deps';
import { GroupCommit } from '../group-commit';
import { announceDisabled } from './announce-disabled';
import { recordedResponse } from './attempt-response';
import { MAX_PAUSE_MS, retryAfterMs } from './back-pressure';
import { decideAttempt } from './decide-attempt';

function describeFailure(result: DeliveryResult): string | null {
  if (result.ok) return null;
  return result.message ? `${result.error}: ${result.message}` : result.error;
}

const STATUS_AFTER = { settle: 'succeeded', retry: 'pending', fail: 'failed' } as const;
const OUTCOME_OF = { settle: 'succeeded', retry: 'retrying', fail: 'failed' } as const;

/** Makes the next attempt of a delivery this worker claimed, and records it. */
export type MakeAttempt = (delivery: ClaimedDelivery) => Promise<void>;

/** Writes a batch of records (the scheduler's `record`, which refills the slots they free in the same statement). */
export type RecordAttempts = (records: AttemptRecord[]) => Promise<void>;

/**
 * The delivery handler: signs the stored body, POSTs it, and records the attempt with what follows
 * it (settled, retried after SPEC's delay, or failed and the subscription disabled; a receiver's
 * Retry-After pauses the subscription). The records of concurrent attempts are written a batch per
 * statement (group commit), and an attempt ends only once its record has committed: a crash between
 * a POST and its record leaves the claim to lapse and the attempt to be made again, a repeat, never
 * a loss. A retry is also a delayed job, which wakes a worker when it is due. When the attempt is
 * traced, its request carries the attempt span's `traceparent`, which its record keeps. Without
 * `record`, the batches are recorded alone.
 */
export function deliveryHandler(deps: WorkerDeps, policy: DeliveryPolicy, record: RecordAttempts = deps.work.recordAttempts): MakeAttempt {
  const { jobs, deliverer } = deps;
  const records = new GroupCommit<AttemptRecord, void>(async (attempts) => {
    await record(attempts);
    return attempts.map(() => undefined);
  });

  return async (delivery) => {
    const attempt = delivery.attemptCount + 1;
    const attemptedAt = new Date();
    const traceparent = currentTraceparent();
    const rotationActive = delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt > attemptedAt;
    // Secrets are sealed at rest (docs/decisions.md#http-behaviour-and-secrets-at-rest): opened here, for this signature only.
    const open = (sealed: string) => deps.secrets.open(sealed, webhookSecretContext(delivery.webhookId));
    // The subscription's own headers (docs/decisions.md#subscriber-controls), sealed like the secret; none is a name the service sets.
    const own =
      delivery.headersSealed === null
        ? {}
        : (JSON.parse(deps.secrets.open(delivery.headersSealed, webhookHeadersContext(delivery.webhookId))) as Record<string, string>);
    const serviceHeaders = {
      ...buildDeliveryHeaders({
        secret: open(delivery.secret),
        previousSecret: rotationActive && delivery.previousSecret ? open(delivery.previousSecret) : null,
        deliveryId: delivery.id,
        eventType: delivery.eventType,
        body: delivery.body,
        now: attemptedAt,
      }),
      ...(traceparent && { traceparent }),
    };
    const headers = { ...own, ...serviceHeaders };
    const result = await deliverer.deliver({ url: delivery.url, body: delivery.body, headers });

    const backOffMs = retryAfterMs(result, new Date());
    // A recovered delivery gets a fresh set of attempts: the schedule counts from the recovery.
    const decision = decideAttempt(
      { ok: result.ok, retryAfterMs: backOffMs },
      { number: attempt - delivery.attemptsBeforeRecovery, test: delivery.test },
      policy,
    );
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
      // As sent, but the subscription's own values as its record shows them: they may hold credentials; the signatures do not.
      requestHeaders: { ...Object.fromEntries(Object.entries(own).map(([name, value]) => [name, maskHeaderValue(value)])), ...serviceHeaders },
      status: STATUS_AFTER[decision.kind],
      nextAttemptAt: decision.kind === 'retry' ? new Date(Date.now() + decision.delayMs) : null,
      disableWebhook,
      pauseWebhookUntil: backOffMs === null ? null : new Date(Date.now() + Math.min(backOffMs, MAX_PAUSE_MS)),
      traceparent,
    });
    const outcome = OUTCOME_OF[decision.kind];
    setSpanAttributes({
      'worktrack.delivery.outcome': outcome,
      ...(result.status !== null && { 'http.response.status_code': result.status }),
      ...(!result.ok && { 'error.type': result.error }),
    });
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
    if (disableWebhook) {
      deps.logger.warn({ webhookId: delivery.webhookId, deliveryId: delivery.id }, 'subscription disabled after its last retry failed');
      await announceDisabled(deps, delivery.webhookId).catch((err: unknown) =>
        deps.logger.error({ err, webhookId: delivery.webhookId }, 'the admins could not be mailed about a disabled subscription'),
      );
    }
    if (decision.kind === 'retry') {
      // Best effort: without the job, a worker's next claim finds the retry due all the same.
      await jobs
        .scheduleDeliveries([{ deliveryId: delivery.id, attempt: attempt + 1, delayMs: decision.delayMs }])
        .catch((err: unknown) => deps.logger.warn({ err, deliveryId: delivery.id }, 'retry left to the claims'));
    }
  };
}
