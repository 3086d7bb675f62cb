import { Gauge, type Registry } from 'prom-client';

export interface BacklogSources {
  /** Outbox events committed but not yet fanned out. */
  undispatchedEvents(): Promise<number>;
  /** Jobs per queue and state (waiting, active, delayed, failed, ...). */
  queueJobs(): Promise<Record<string, Record<string, number>>>;
  /** Deliveries due and not leased to a worker (the worker's; capped): what the workers should scale on. */
  dueDeliveries?(): Promise<number>;
}

/**
 * docs/decisions.md#operations: `outbox_undispatched_events`, `queue_jobs{queue,state}` and, on the worker,
 * `webhook_deliveries_due`, read when scraped. A
 * source that is down leaves its gauge out of that scrape rather than failing the whole page.
 */
export function registerBacklogGauges(registry: Registry, sources: BacklogSources): void {
  countGauge(registry, 'outbox_undispatched_events', 'Outbox events committed but not yet fanned out to deliveries', sources.undispatchedEvents);
  if (sources.dueDeliveries)
    countGauge(registry, 'webhook_deliveries_due', 'Webhook deliveries due and not leased to a worker (counted up to 100,000)', sources.dueDeliveries);
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

function countGauge(registry: Registry, name: string, help: string, count: () => Promise<number>): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const value = await count().catch(() => null);
      if (value === null) this.reset();
      else this.set(value);
    },
  });
}
