import type { AttemptRecord, Claim, ClaimedDelivery, DeliveryWork } from '@worktrack/db';
import { databaseErrorReporter, type Logger } from '@worktrack/config';
import type { MakeAttempt } from './handlers/deliver-webhook';

export interface DeliverySchedulerOptions {
  /** Attempts this worker makes at once (`WORKER_CONCURRENCY`). */
  concurrency: number;
  /** How long a claimed delivery stays leased to this worker. */
  claimMs: number;
  /**
   * How long a claimed delivery may wait for a slot: started later, its lease could lapse before its
   * attempt ends (and another worker make it too), so it is released instead.
   */
  startWithinMs: number;
  /**
   * How often a worker with free slots claims unprompted: what comes due without a wake (a pause
   * or a rate limit's bucket ending, another worker's attempt ending under a cap, a lapsed lease).
   */
  pollMs: number;
}

/**
 * A claim takes at least half the slots' worth: while less room is free, wakes are gathered for at
 * most this long, so that a saturated worker claims in batches (a claim is a transaction of its own,
 * whose cost in Postgres hardly grows with what it takes: at half the slots a saturated worker ran a
 * fifth fewer statements than at a fifth, docs/performance.md) and an idle one, whose slots are all
 * free, claims at once. Two batches more are claimed ahead, so that a slot is refilled the moment its
 * attempt ends, not a claim's round trip later (on a busy worker, whose event loop answers the claim
 * late, one batch ahead ran dry).
 */
const GATHER_MS = 5;
const BATCH_SHARE = 2;
const BATCHES_AHEAD = 2;

interface Claimed {
  delivery: ClaimedDelivery;
  /** When its claim began: its lease ends `claimMs` after at the earliest. */
  claimedAt: number;
}

/**
 * The worker's attempt slots, filled by the fair claim: whenever room is free and something may be
 * due, it claims that many deliveries from Postgres (which orders organizations and subscriptions in
 * turn under their caps), starts their attempts in that order as slots free up, and keeps some
 * claimed ahead. Something may be due after a fan-out, a delivery job, at each poll, and after an
 * attempt ends if the last claim left some due or the attempt was of an ordered delivery (its
 * resource's next one may now be due). A batch of records claims in its own statement, after them
 * (`record`), for the room free once its attempts end: at a cap, the slots a record frees are
 * refilled without a claim of their own, and its attempts wake nothing more unless that claim took
 * all it asked for. One claim runs at a time per worker, a record's included: a record that comes
 * while another claim runs waits for it, then claims in its own statement (a claim's round trip
 * later, where a record written alone would leave its slots to a claim of their own); wakes that
 * arrive meanwhile fold into the next.
 */
export class DeliveryScheduler {
  private readonly attempts = new Set<Promise<void>>();
  /** Claimed and waiting for a slot, in claim order. */
  private readonly ahead: Claimed[] = [];
  private readonly batch: number;
  private claiming: Promise<void> | undefined;
  private readonly releasing = new Set<Promise<void>>();
  private wokenWhileClaiming = false;
  /** The last claim left deliveries due (under a cap, say): an attempt ending may let them be claimed. */
  private moreDue = false;
  private gathering: NodeJS.Timeout | undefined;
  /** Deliveries whose record claimed after it without filling its room: their attempts' end wakes nothing. */
  private readonly refilled = new Set<string>();
  private closed = false;
  private readonly poll: NodeJS.Timeout;
  private readonly reportClaimError = databaseErrorReporter((err) => this.logger.warn({ err }, 'claim failed; claiming again at the next poll'));

  constructor(
    private readonly work: Pick<DeliveryWork, 'claimDueDeliveries' | 'releaseDeliveries' | 'recordAttempts' | 'recordAttemptsAndClaim'>,
    private readonly makeAttempt: MakeAttempt,
    private readonly logger: Logger,
    private readonly options: DeliverySchedulerOptions,
  ) {
    this.batch = Math.max(1, Math.floor(options.concurrency / BATCH_SHARE));
    this.poll = setInterval(() => {
      this.releaseStale();
      this.claim();
    }, options.pollMs);
  }

  /** Something may be due: claims now if enough room is free, or within a few milliseconds if any is. */
  wake(): void {
    if (this.closed) return;
    if (this.claiming) {
      this.wokenWhileClaiming = true;
      return;
    }
    const room = this.room();
    if (room >= this.batch) this.claim();
    else if (room > 0) this.gathering ??= setTimeout(() => this.claim(), GATHER_MS);
  }

  /**
   * Records a batch of this worker's attempts (their records written together) and, in the same
   * statement, claims for the room free once they end, after the claim running if one is, unless the
   * scheduler is closed or no room would be free (then it only records). Should that statement fail,
   * the records are written again alone, so that a claim's failure never costs an attempt its record
   * (and the receiver a repeat); rejects, having recorded none, when the record itself fails.
   */
  async record(records: AttemptRecord[]): Promise<void> {
    while (this.claiming && !this.closed) await this.claiming;
    const limit = this.closed ? 0 : this.room() + records.length;
    if (limit <= 0) return this.work.recordAttempts(records);
    let claim: Claim;
    try {
      claim = await this.claimWith(
        limit,
        () => this.work.recordAttemptsAndClaim(records, limit, this.options.claimMs),
        () => undefined,
      );
    } catch (err) {
      await this.work.recordAttempts(records);
      // Recorded alone: the failure was the claim's.
      this.reportClaimError(err);
      return;
    }
    if (claim.deliveries.length < limit) for (const { deliveryId } of records) this.refilled.add(deliveryId);
  }

  /** Claims no more, gives back what was claimed ahead, and resolves once the attempts in flight are recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    clearTimeout(this.gathering);
    await this.claiming;
    this.release(this.ahead.splice(0));
    await Promise.allSettled([...this.attempts, ...this.releasing]);
  }

  /** Slots free plus the batches claimed ahead, less what waits. */
  private room(): number {
    return this.options.concurrency + BATCHES_AHEAD * this.batch - this.attempts.size - this.ahead.length;
  }

  /** One claim for all the free room, unless one is running; then another if it may have left some due. */
  private claim(): void {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    const room = this.room();
    if (this.closed || this.claiming || room <= 0) return;
    void this.claimWith(
      room,
      () => this.work.claimDueDeliveries(room, this.options.claimMs),
      (err) => this.reportClaimError(err),
    );
  }

  /**
   * Runs a claim of up to `limit` as the one claim running, takes in what it returns, then claims
   * again if it may have left some due. Resolves or rejects as the claim does.
   */
  private claimWith(limit: number, run: () => Promise<Claim>, onError: (err: unknown) => void): Promise<Claim> {
    this.wokenWhileClaiming = false;
    const claimedAt = Date.now();
    const claim = run();
    this.claiming = claim
      .then(
        ({ deliveries, moreDue }) => {
          this.moreDue = moreDue;
          if (this.closed) {
            this.release(deliveries.map((delivery) => ({ delivery, claimedAt })));
            return false;
          }
          for (const delivery of deliveries) this.ahead.push({ delivery, claimedAt });
          this.fill();
          return deliveries.length === limit;
        },
        (err: unknown) => {
          onError(err);
          return false;
        },
      )
      .then((filled) => {
        this.claiming = undefined;
        if (filled || this.wokenWhileClaiming) this.wake();
      });
    return claim;
  }

  /** Starts what was claimed, oldest first, while slots are free. */
  private fill(): void {
    this.releaseStale();
    while (!this.closed && this.attempts.size < this.options.concurrency && this.ahead.length > 0) this.start(this.ahead.shift()!.delivery);
  }

  private start(delivery: ClaimedDelivery): void {
    const attempt = this.makeAttempt(delivery)
      .catch((err: unknown) => this.logger.warn({ err, deliveryId: delivery.id }, 'attempt not recorded; it is made again once its lease lapses'))
      .finally(() => {
        this.attempts.delete(attempt);
        this.fill();
        // Unless its record claimed after it: that claim saw what its end may have made due.
        if (!this.refilled.delete(delivery.id) && (this.moreDue || delivery.ordered)) this.wake();
      });
    this.attempts.add(attempt);
  }

  /** Gives back what waited too long for a slot (every slot held by slow receivers) to be started safely. */
  private releaseStale(): void {
    const oldest = Date.now() - this.options.startWithinMs;
    let stale = 0;
    while (stale < this.ahead.length && this.ahead[stale]!.claimedAt < oldest) stale++;
    this.release(this.ahead.splice(0, stale));
  }

  private release(claimed: Claimed[]): void {
    if (claimed.length === 0) return;
    const releasing = this.work
      .releaseDeliveries(claimed.map((c) => c.delivery))
      .catch((err: unknown) => this.logger.warn({ err }, 'claimed deliveries not released; they are claimed again once their leases lapse'))
      .finally(() => {
        this.releasing.delete(releasing);
        this.wake();
      });
    this.releasing.add(releasing);
  }
}
