import type { DeliveryError } from '@worktrack/webhooks/deliver';
import { decideAttempt, type AttemptDecision } from '../src/handlers/decide-attempt';

// The contract's schedule (docs/decisions.md#retries-and-disabling): retries 1-6 after these delays, so at most 7 attempts.
const policy = { retryDelaysMs: [60_000, 300_000, 900_000, 3_600_000, 10_800_000, 21_600_000] };
const ok = { ok: true };
const failed = { ok: false };

const settle: AttemptDecision = { kind: 'settle' };
const retryAfter = (delayMs: number): AttemptDecision => ({ kind: 'retry', delayMs });
const failAndDisable: AttemptDecision = { kind: 'fail', disableWebhook: true };
const failOnly: AttemptDecision = { kind: 'fail', disableWebhook: false };

describe('decideAttempt', () => {
  it.each<[number, { ok: boolean }, AttemptDecision]>([
    [1, ok, settle],
    [2, ok, settle],
    [3, ok, settle],
    [4, ok, settle],
    [5, ok, settle],
    [6, ok, settle],
    [7, ok, settle],
    [1, failed, retryAfter(60_000)],
    [2, failed, retryAfter(300_000)],
    [3, failed, retryAfter(900_000)],
    [4, failed, retryAfter(3_600_000)],
    [5, failed, retryAfter(10_800_000)],
    [6, failed, retryAfter(21_600_000)],
    [7, failed, failAndDisable],
    // A redelivery after the delivery failed: one more attempt, which never disables again.
    [8, ok, settle],
    [8, failed, failOnly],
  ])('attempt %i, ok %p: %p', (attempt, result, decision) => {
    expect(decideAttempt(result, { number: attempt, test: false }, policy)).toEqual(decision);
  });

  it.each<DeliveryError>(['timeout', 'redirect', 'http_status', 'connection_error', 'blocked_address', 'invalid_url'])(
    'treats every kind of failure alike: %s is retried, and fails and disables on the last attempt',
    (error) => {
      const result = { ok: false, error };
      expect(decideAttempt(result, { number: 1, test: false }, policy)).toEqual(retryAfter(60_000));
      expect(decideAttempt(result, { number: 7, test: false }, policy)).toEqual(failAndDisable);
    },
  );

  it.each<[{ ok: boolean }, AttemptDecision]>([
    [ok, settle],
    [failed, failOnly],
  ])('gives a test delivery one attempt, never disabling: ok %p: %p', (result, decision) => {
    expect(decideAttempt(result, { number: 1, test: true }, policy)).toEqual(decision);
  });

  it('follows the configured schedule, whatever its length', () => {
    const short = { retryDelaysMs: [20] };
    expect(decideAttempt(failed, { number: 1, test: false }, short)).toEqual(retryAfter(20));
    expect(decideAttempt(failed, { number: 2, test: false }, short)).toEqual(failAndDisable);
  });

  describe("with the receiver's Retry-After (429 or 503)", () => {
    const backOff = (retryAfterMs: number | null) => ({ ok: false, retryAfterMs });

    it.each<[number, number, number]>([
      // Longer than the schedule's delay: the receiver's wins.
      [1, 120_000, 120_000],
      [2, 600_000, 600_000],
      [5, 18_000_000, 18_000_000],
      // Shorter, or none at all: the schedule's.
      [1, 30_000, 60_000],
      [1, 0, 60_000],
      [3, 60_000, 900_000],
      // Longer than 6 hours: 6 hours, unless the schedule waits longer still.
      [1, 3 * 24 * 3_600_000, 21_600_000],
      [4, 7 * 3_600_000, 21_600_000],
    ])('attempt %i, Retry-After %i ms: retry after %i ms', (attempt, retryAfterMs, delayMs) => {
      expect(decideAttempt(backOff(retryAfterMs), { number: attempt, test: false }, policy)).toEqual(retryAfter(delayMs));
    });

    it('caps the wait at 6 hours but never shortens a schedule that waits longer', () => {
      const long = { retryDelaysMs: [8 * 3_600_000] };
      expect(decideAttempt(backOff(10 * 3_600_000), { number: 1, test: false }, long)).toEqual(retryAfter(8 * 3_600_000));
    });

    it('changes nothing else: the last attempt still fails and disables, a test delivery still fails alone, a success settles', () => {
      expect(decideAttempt(backOff(120_000), { number: 7, test: false }, policy)).toEqual(failAndDisable);
      expect(decideAttempt(backOff(120_000), { number: 1, test: true }, policy)).toEqual(failOnly);
      expect(decideAttempt({ ok: true, retryAfterMs: 120_000 }, { number: 1, test: false }, policy)).toEqual(settle);
      expect(decideAttempt(backOff(null), { number: 1, test: false }, policy)).toEqual(retryAfter(60_000));
    });
  });
});
