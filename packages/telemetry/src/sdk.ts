import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
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
 * sampler, resource), with the instrumentations of what the services use: HTTP in and out, Express,
 * Postgres, Redis and undici. Only traces: metrics stay Prometheus and logs stay on stdout unless
 * their own `OTEL_*_EXPORTER` says otherwise.
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
      // Express names the request's span by its route (`http.route`); a span per middleware, router
      // or handler layer would nearly double the API's CPU per request (docs/performance.md#tracing-overhead).
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER, ExpressLayerType.REQUEST_HANDLER] }),
      // Likewise taking a pooled connection: the queries are the spans.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
      new UndiciInstrumentation({ ignoreRequestHook: carriesTraceparent }),
    ],
  });
  sdk.start();
  return sdk;
}
