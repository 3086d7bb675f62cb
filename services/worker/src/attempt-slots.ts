import { Sema } from 'async-sema';

/**
 * The worker's `WORKER_CONCURRENCY` attempts in flight, shared by delivery jobs and by the fan-out's
 * first attempts. A fan-out reserves slots without waiting, before it leases first attempts, so that
 * a lease never runs out while its attempt waits for a slot.
 */
export class AttemptSlots {
  private readonly sema: Sema;

  constructor(size: number) {
    this.sema = new Sema(size);
  }

  /** Runs `attempt` in a slot, waiting for one. */
  async run<T>(attempt: () => Promise<T>): Promise<T> {
    await this.sema.acquire();
    try {
      return await attempt();
    } finally {
      this.sema.release();
    }
  }

  /** Takes a slot if one is free now; the caller gives it back with `release`. */
  tryReserve(): boolean {
    return this.sema.tryAcquire() !== undefined;
  }

  release(count = 1): void {
    for (let i = 0; i < count; i++) this.sema.release();
  }
}
