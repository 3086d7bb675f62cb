/** The statuses a request is retried on: the quota or throttle (429) and a backing service down (503). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The longest wait before one retry. A `Retry-After` beyond it is not waited for: the response is returned as it is. */
  maxRetryDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, maxRetryDelayMs: 60_000 };

/** First wait when the response names none; doubles per retry. */
const BACKOFF_BASE_MS = 500;

/**
 * `Retry-After` in milliseconds from `now`: delta-seconds (what this API sends) or an HTTP date.
 * Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date starts with the day's name (RFC 9110 §5.6.7); Date.parse alone would take '-1' or '1.5'.
  const date = /^[A-Za-z]/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * What to do after a response to attempt `attempt` (0 for the first): wait this many milliseconds
 * and try again, or null to hand the response to the caller. Pure, so the policy is tested by a table.
 */
export function retryDelay(
  response: { status: number; headers: { get(name: string): string | null } },
  attempt: number,
  policy: RetryPolicy,
  now: number,
  random: () => number = Math.random,
): number | null {
  if (!RETRYABLE_STATUSES.has(response.status) || attempt >= policy.maxRetries) return null;
  const asked = parseRetryAfter(response.headers.get('retry-after'), now);
  if (asked !== null) return asked <= policy.maxRetryDelayMs ? asked : null;
  // No instruction: exponential backoff with jitter (half to all of the step), within the bound.
  const step = Math.min(policy.maxRetryDelayMs, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(step * (0.5 + random() / 2));
}

/** Waits, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
