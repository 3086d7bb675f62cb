import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation, type UndiciRequest } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { AsyncLocalStorageContext } from './context-manager';
import { redisStatement } from './redis-statement';

/** Probes and scrapes, which would each be a trace of their own. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** A request that already names its span: a webhook attempt, whose span is the attempt's own. */
function carriesTraceparent({ headers }: UndiciRequest): boolean {
  if (typeof headers === 'string') return /^traceparent:/im.test(headers);
  return headers.some((value, i) => i % 2 === 0 && typeof value === 'string' && value.toLowerCase() === 'traceparent');
}

/**
 * The OpenTelemetry SDK, configured by its standard variables (exporter, endpoint, protocol,
 * sampler, resource), with the instrumentations of what the services use: HTTP in and out, Postgres,
 * Redis and undici; the route table names a request's span by its route (`recordRoute`). Only
 * traces: metrics stay Prometheus and logs stay on stdout unless their own `OTEL_*_EXPORTER` says
 * otherwise.
 */
export function startSdk(serviceName: string): NodeSDK {
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || serviceName,
    contextManager: new AsyncLocalStorageContext(),
    instrumentations: [
      // Outgoing calls outside any span (the object store's probes) would each be a trace of their own.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!), requireParentforOutgoingSpans: true }),
      // Taking a pooled connection is no span of its own: the queries are the spans.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
      new UndiciInstrumentation({ ignoreRequestHook: carriesTraceparent }),
    ],
  });
  sdk.start();
  return sdk;
}

/**
 * Names the request's span by the route it matched (`POST /v1/tasks/:taskId`, with `http.route`), as
 * Express's instrumentation would; that one wraps each of the dozen layers a request passes to find it
 * (docs/performance.md#tracing-overhead).
 */
export function recordRoute(route: string): void {
  const metadata = getRPCMetadata(context.active());
  if (metadata?.type === RPCType.HTTP) metadata.route = route;
}
