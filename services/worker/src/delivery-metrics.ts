import { Counter, Histogram, type Registry } from 'prom-client';

export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed';

/** docs/decisions.md#operations: what each delivery attempt adds to the worker's /metrics. */
export class DeliveryMetrics {
  private readonly attempts: Counter<'outcome'>;
  private readonly duration: Histogram;
  private readonly eventToDelivery: Histogram;

  constructor(registry: Registry) {
    this.attempts = new Counter({ name: 'webhook_deliveries_total', help: 'Delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] });
    this.duration = new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: "Time of one delivery attempt's HTTP exchange",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    this.eventToDelivery = new Histogram({
      name: 'webhook_event_to_delivery_seconds',
      help: "Time from an event's commit to its successful delivery",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 60, 600, 3600, 21600],
      registers: [registry],
    });
  }

  observe(outcome: AttemptOutcome, durationMs: number, eventCreatedAt: Date | null): void {
    this.attempts.inc({ outcome });
    this.duration.observe(durationMs / 1000);
    if (outcome === 'succeeded' && eventCreatedAt) this.eventToDelivery.observe((Date.now() - eventCreatedAt.getTime()) / 1000);
  }
}
