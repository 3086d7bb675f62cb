export { createMetricsRegistry, type Registry } from './registry';
export { registerBacklogGauges, type BacklogSources } from './backlog-gauges';
