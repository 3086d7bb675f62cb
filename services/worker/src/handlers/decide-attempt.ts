import type { DeliveryPolicy } from '../deps';
import { MAX_RETRY_AFTER_MS } from './back-pressure';

/** What follows an attempt: settle the delivery, try again after a delay, or fail it. */
export type AttemptDecision = { kind: 'settle' } | { kind: 'retry'; delayMs: number } | { kind: 'fail'; disableWebhook: boolean };

export interface AttemptMade {
  /** 1 for the first attempt. */
  number: number;
  /** A sample delivery of POST /webhooks/{id}/test. */
  test: boolean;
}

/** What the attempt got: success or not, and how long the receiver asked to wait (429/503 with Retry-After). */
export interface AttemptResult {
  ok: boolean;
  retryAfterMs?: number | null;
}

/**
 * Success settles. A failure is retried after the policy's delay for that attempt, or after the
 * receiver's Retry-After when that is later (at most 6 hours); when the last
 * scheduled attempt fails, the delivery fails and its subscription is disabled. Test deliveries get
 * one attempt, and so does a redelivery past the last scheduled attempt; neither disables anything.
 */
export function decideAttempt(result: AttemptResult, attempt: AttemptMade, policy: Pick<DeliveryPolicy, 'retryDelaysMs'>): AttemptDecision {
  if (result.ok) return { kind: 'settle' };
  if (attempt.test) return { kind: 'fail', disableWebhook: false };
  const delayMs = policy.retryDelaysMs[attempt.number - 1];
  if (delayMs !== undefined) return { kind: 'retry', delayMs: Math.max(delayMs, Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)) };
  return { kind: 'fail', disableWebhook: attempt.number === policy.retryDelaysMs.length + 1 };
}
