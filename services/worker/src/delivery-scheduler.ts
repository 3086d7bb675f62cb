import { claimDueDeliveries, type ClaimedDelivery, type SqlPool } from '@worktrack/db';
import type { Logger } from '@worktrack/config';

export interface DeliverySchedulerOptions {
  /** Attempts this worker makes at once (`WORKER_CONCURRENCY`). */
  concurrency: number;
  /** How long a claimed delivery stays leased to this worker. */
  claimMs: number;
  /**
   * How often a worker with free slots claims unprompted: what comes due without a wake (a pause
   * or a rate limit's bucket ending, another worker's attempt ending under a cap, a lapsed lease).
   */
  pollMs: number;
}

/**
 * A claim fills at least a fifth of the slots: while fewer are free, wakes are gathered for at most
 * this long, so that a saturated worker claims in batches (a claim is a transaction of its own)
 * and an idle one, whose slots are all free, claims at once.
 */
const GATHER_MS = 5;
const BATCH_SHARE = 5;

/**
 * The worker's attempt slots, filled by the fair claim: whenever slots are free and something may be
 * due, it claims that many deliveries from Postgres (which orders organizations and subscriptions in
 * turn under their caps) and makes their attempts. One claim runs at a time per worker; wakes that
 * arrive meanwhile fold into the next.
 */
export class DeliveryScheduler {
  private readonly attempts = new Set<Promise<void>>();
  private readonly batch: number;
  private claiming: Promise<void> | undefined;
  private wokenWhileClaiming = false;
  private gathering: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly poll: NodeJS.Timeout;

  constructor(
    private readonly sql: SqlPool,
    private readonly makeAttempt: (delivery: ClaimedDelivery) => Promise<void>,
    private readonly logger: Logger,
    private readonly options: DeliverySchedulerOptions,
  ) {
    this.batch = Math.max(1, Math.floor(options.concurrency / BATCH_SHARE));
    this.poll = setInterval(() => this.claim(), options.pollMs);
  }

  /** Something may be due: claims now if enough slots are free, or within a few milliseconds if any is. */
  wake(): void {
    if (this.closed) return;
    if (this.claiming) {
      this.wokenWhileClaiming = true;
      return;
    }
    const free = this.free();
    if (free >= this.batch) this.claim();
    else if (free > 0) this.gathering ??= setTimeout(() => this.claim(), GATHER_MS);
  }

  /** Claims no more, and resolves once the attempts in flight are recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    clearTimeout(this.gathering);
    await this.claiming;
    await Promise.allSettled([...this.attempts]);
  }

  private free(): number {
    return this.options.concurrency - this.attempts.size;
  }

  /** One claim for every free slot, unless one is running; then another if it may have left some due. */
  private claim(): void {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    const free = this.free();
    if (this.closed || this.claiming || free <= 0) return;
    this.wokenWhileClaiming = false;
    this.claiming = claimDueDeliveries(this.sql, free, this.options.claimMs)
      .then(
        (claimed) => {
          for (const delivery of claimed) this.start(delivery);
          return claimed.length === free;
        },
        (err: unknown) => {
          this.logger.warn({ err }, 'claim failed; claiming again at the next poll');
          return false;
        },
      )
      .then((filled) => {
        this.claiming = undefined;
        if (filled || this.wokenWhileClaiming) this.wake();
      });
  }

  private start(delivery: ClaimedDelivery): void {
    const attempt = this.makeAttempt(delivery)
      .catch((err: unknown) => this.logger.warn({ err, deliveryId: delivery.id }, 'attempt not recorded; it is made again once its lease lapses'))
      .finally(() => {
        this.attempts.delete(attempt);
        this.wake();
      });
    this.attempts.add(attempt);
  }
}
