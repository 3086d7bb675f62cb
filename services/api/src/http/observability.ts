import type { Request, RequestHandler } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Logger } from '@worktrack/config';
import { newId } from '@worktrack/db';
import { recordRoute } from '@worktrack/telemetry';

/**
 * The route's template (`/v1/tasks/:taskId`), never the raw path: ids would make a label per record.
 * The route table's guard records it for every known path (`matchedRoute`), before authentication,
 * since Express forgets the mount path once an error leaves the router; requests for no known path
 * are `unmatched`. The same call names the request's span when tracing.
 */
function routeTemplate(req: Request): string {
  const matched = (req.res?.locals as { route?: string } | undefined)?.route;
  return matched ?? (req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched');
}

export function matchedRoute(req: Request, template: string): void {
  const route = `${req.baseUrl}${template}`;
  req.res!.locals.route = route;
  recordRoute(route);
}

declare global {
  namespace Express {
    interface Request {
      requestId: string;
    }
  }
}

const acceptableRequestId = /^[\w.-]{1,128}$/;

export const newRequestId = () => newId('request');

/**
 * Who a request was and how it went, from one middleware and one listener:
 * - its id: a caller's X-Request-Id when it is sane, otherwise a new one; every response carries it;
 * - one access line once its response is finished or abandoned: requestId, method, route, status,
 *   duration, organization; a 5xx or an abandoned response at error level. Written straight to the
 *   logger: a per-request child logger cost a tenth of a request's CPU;
 * - docs/decisions.md#operations: `http_requests_total` and `http_request_duration_seconds` by
 *   method, route template and status, for the responses that were finished.
 */
export function observeRequests(logger: Logger, registry: Registry): RequestHandler {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.get('x-request-id');
    req.requestId = incoming && acceptableRequestId.test(incoming) ? incoming : newRequestId();
    res.setHeader('X-Request-Id', req.requestId);
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(req);
      const line = {
        requestId: req.requestId,
        method: req.method,
        route,
        status: res.statusCode,
        durationMs: Math.round(seconds * 1000),
        organization: req.tenant?.organizationId ?? null,
      };
      if (!res.writableFinished) return void logger.error(line, 'request abandoned');
      if (res.statusCode >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request');
      const labels = { method: req.method, route, status: String(res.statusCode) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    });
    next();
  };
}

/** `/metrics` in Prometheus's text format. */
export function metricsEndpoint(registry: Registry): RequestHandler {
  return async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  };
}
