import type { DeliveryResult } from '@worktrack/webhooks/deliver';
import { MAX_PAUSE_MS, MAX_RETRY_AFTER_MS, retryAfterMs } from '../src/handlers/back-pressure';

const now = new Date('2026-11-26T12:00:00.000Z');
const answer = (status: number | null, retryAfter?: string): Pick<DeliveryResult, 'status' | 'responseHeaders'> => ({
  status,
  responseHeaders: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
});

describe('retryAfterMs', () => {
  it.each<[string, number]>([
    ['120', 120_000],
    ['0', 0],
    [' 30 ', 30_000],
    // Delay-seconds are taken as they come; the callers cap them.
    ['259200', 259_200_000],
  ])('reads delay-seconds: %p is %p ms', (value, ms) => {
    expect(retryAfterMs(answer(429, value), now)).toBe(ms);
    expect(retryAfterMs(answer(503, value), now)).toBe(ms);
  });

  it('reads an HTTP date as the time left until it', () => {
    expect(retryAfterMs(answer(503, 'Thu, 26 Nov 2026 12:10:00 GMT'), now)).toBe(600_000);
    expect(retryAfterMs(answer(429, new Date(now.getTime() + 90_000).toUTCString()), now)).toBe(90_000);
  });

  it('reads a date already past as no wait at all', () => {
    expect(retryAfterMs(answer(503, 'Thu, 26 Nov 2026 11:59:00 GMT'), now)).toBe(0);
    expect(retryAfterMs(answer(429, 'Wed, 21 Oct 2015 07:28:00 GMT'), now)).toBe(0);
  });

  it.each(['soon', '', '   ', 'Thursday noon', '1.5e3'])('reads no wait in a header that says neither: %p', (value) => {
    expect(retryAfterMs(answer(429, value), now)).toBeNull();
  });

  it('is null without the header', () => {
    expect(retryAfterMs(answer(429), now)).toBeNull();
    expect(retryAfterMs({ status: 503 }, now)).toBeNull();
  });

  it.each([200, 301, 400, 500, 502, 504, null])('heeds only 429 and 503, not %p', (status) => {
    expect(retryAfterMs(answer(status, '120'), now)).toBeNull();
  });

  it('caps at 6 hours for the retry and 1 hour for the pause (docs/decisions.md#fair-delivery)', () => {
    expect(MAX_RETRY_AFTER_MS).toBe(6 * 3_600_000);
    expect(MAX_PAUSE_MS).toBe(3_600_000);
  });
});
