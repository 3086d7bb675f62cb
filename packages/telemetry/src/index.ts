export { SpanKind } from '@opentelemetry/api';
export { currentTraceparent, setSpanAttributes, traced, traceFields, type TracedOptions } from './spans';
export { recordRoute, startTracing, stopTracing, tracingEnabled } from './tracing';
