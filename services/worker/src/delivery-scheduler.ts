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
 * The worker's attempt slots, filled by the fair claim: whenever slots are free and something may be
 * due, it claims that many deliveries from Postgres (which orders organizations and subscriptions in
 * turn under their caps) and makes their attempts. One claim runs at a time per worker; wakes that
 * arrive meanwhile fold into the next, so a busy worker claims many deliveries per statement.
 */
export class DeliveryScheduler {
  private readonly attempts = new Set<Promise<void>>();
  private claiming: Promise<void> | undefined;
  private wokenWhileClaiming = false;
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly sql: SqlPool,
    private readonly makeAttempt: (delivery: ClaimedDelivery) => Promise<void>,
    private readonly logger: Logger,
    private readonly options: DeliverySchedulerOptions,
  ) {
    this.timer = setInterval(() => this.wake(), options.pollMs);
  }

  /** Something may be due: claims now if a slot is free. */
  wake(): void {
    if (this.closed) return;
    if (this.claiming) {
      this.wokenWhileClaiming = true;
      return;
    }
    this.claiming = this.claimWhileFree().finally(() => {
      this.claiming = undefined;
    });
  }

  /** Claims no more, and resolves once the attempts in flight are recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.claiming;
    await Promise.allSettled([...this.attempts]);
  }

  private async claimWhileFree(): Promise<void> {
    let more = true;
    while (more && !this.closed) {
      this.wokenWhileClaiming = false;
      const free = this.options.concurrency - this.attempts.size;
      if (free <= 0) return;
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claimDueDeliveries(this.sql, free, this.options.claimMs);
      } catch (err) {
        this.logger.warn({ err }, 'claim failed; claiming again at the next poll');
        return;
      }
      for (const delivery of claimed) this.start(delivery);
      more = claimed.length === free || this.wokenWhileClaiming;
    }
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
