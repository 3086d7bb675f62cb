import { collectDefaultMetrics, Registry } from 'prom-client';

export type { Registry };

/** One registry per service, with the default process metrics (CPU, memory, event loop lag, GC). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
