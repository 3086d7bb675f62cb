import type { DeliveryResult } from '@worktrack/webhooks/deliver';

/** A receiver's Retry-After puts its delivery's next attempt no earlier than this far ahead (docs/decisions.md#fair-delivery)... */
export const MAX_RETRY_AFTER_MS = 6 * 60 * 60 * 1000;
/** ...and pauses the subscription's other attempts at most this long. */
export const MAX_PAUSE_MS = 60 * 60 * 1000;

// An HTTP date (RFC 9110 5.6.7) in its preferred form, e.g. `Wed, 21 Oct 2026 07:28:00 GMT`; Date.parse
// alone would read garbage such as `1.5` or `Dec 2030` as a date.
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * How long a receiver that answered 429 or 503 asked to be left alone, from its `Retry-After`
 * (delay-seconds or an HTTP date); null for any other answer, or a header that says neither.
 */
export function retryAfterMs(result: Pick<DeliveryResult, 'status' | 'responseHeaders'>, now: Date): number | null {
  if (result.status !== 429 && result.status !== 503) return null;
  const value = result.responseHeaders?.['retry-after']?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const until = HTTP_DATE.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(until) ? null : Math.max(0, until - now.getTime());
}
