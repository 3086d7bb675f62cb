import { Gauge, type Registry } from 'prom-client';

export interface BacklogSources {
  /** Outbox events committed but not yet fanned out. */
  undispatchedEvents(): Promise<number>;
  /** Jobs per queue and state (waiting, active, delayed, failed, ...). */
  queueJobs(): Promise<Record<string, Record<string, number>>>;
}

/**
 * docs/decisions.md#operations: `outbox_undispatched_events` and `queue_jobs{queue,state}`, read when scraped. A
 * source that is down leaves its gauge out of that scrape rather than failing the whole page.
 */
export function registerBacklogGauges(registry: Registry, sources: BacklogSources): void {
  new Gauge({
    name: 'outbox_undispatched_events',
    help: 'Outbox events committed but not yet fanned out to deliveries',
    registers: [registry],
    async collect() {
      const count = await sources.undispatchedEvents().catch(() => null);
      if (count === null) this.reset();
      else this.set(count);
    },
  });
  new Gauge({
    name: 'queue_jobs',
    help: 'BullMQ jobs by queue and state',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      const counts = await sources.queueJobs().catch(() => null);
      this.reset();
      for (const [queue, states] of Object.entries(counts ?? {})) {
        for (const [state, value] of Object.entries(states)) this.set({ queue, state }, value);
      }
    },
  });
}
