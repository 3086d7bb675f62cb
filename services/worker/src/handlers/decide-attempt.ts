import type { DeliveryResult } from '@worktrack/webhooks';
import type { DeliveryPolicy } from '../deps';

/** What follows an attempt: settle the delivery, try again after a delay, or fail it. */
export type AttemptDecision = { kind: 'settle' } | { kind: 'retry'; delayMs: number } | { kind: 'fail'; disableWebhook: boolean };

export interface AttemptMade {
  /** 1 for the first attempt. */
  number: number;
  /** A sample delivery of POST /webhooks/{id}/test. */
  test: boolean;
}

/**
 * Success settles. A failure is retried after the policy's delay for that attempt; when the last
 * scheduled attempt fails, the delivery fails and its subscription is disabled. Test deliveries get
 * one attempt, and so does a redelivery past the last scheduled attempt; neither disables anything.
 */
export function decideAttempt(result: Pick<DeliveryResult, 'ok'>, attempt: AttemptMade, policy: Pick<DeliveryPolicy, 'retryDelaysMs'>): AttemptDecision {
  if (result.ok) return { kind: 'settle' };
  if (attempt.test) return { kind: 'fail', disableWebhook: false };
  const delayMs = policy.retryDelaysMs[attempt.number - 1];
  if (delayMs !== undefined) return { kind: 'retry', delayMs };
  return { kind: 'fail', disableWebhook: attempt.number === policy.retryDelaysMs.length + 1 };
}
