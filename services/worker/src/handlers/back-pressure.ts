import type { DeliveryResult } from '@worktrack/webhooks';

/** A receiver's Retry-After puts its delivery's next attempt no earlier than this far ahead (DECISIONS §13)... */
export const MAX_RETRY_AFTER_MS = 6 * 60 * 60 * 1000;
/** ...and pauses the subscription's other attempts at most this long. */
export const MAX_PAUSE_MS = 60 * 60 * 1000;

/**
 * How long a receiver that answered 429 or 503 asked to be left alone, from its `Retry-After`
 * (delay-seconds or an HTTP date); null for any other answer, or a header that says neither.
 */
export function retryAfterMs(result: Pick<DeliveryResult, 'status' | 'responseHeaders'>, now: Date): number | null {
  if (result.status !== 429 && result.status !== 503) return null;
  const value = result.responseHeaders?.['retry-after']?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const until = Date.parse(value);
  return Number.isNaN(until) ? null : Math.max(0, until - now.getTime());
}
