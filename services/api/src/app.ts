import express, { Router } from 'express';
import type { AppDeps } from './deps';
import { authenticate } from './http/auth';
import { FailedAuthThrottle } from './http/auth-throttle';
import { compressResponses, noStore } from './http/response-policy';
import { errorHandler, unknownRoute } from './http/errors';
import { dailyQuotaLimiter } from './http/rate-limit';
import { mountPublicRoutes, mountRoutes, RouteTable, routeGuard } from './http/route-table';
import { securityHeaders } from './http/security-headers';
import { STREAM_PATH, streamEvents } from './modules/events/stream/stream-events';
import { metricsEndpoint, observeRequests } from './http/observability';
import { apiDocument, apiRoutes, publicRoutes } from './routes';
import { docsPage } from './openapi/docs-page';
import { HEALTH_PATHS, healthRoutes } from './modules/health/health-routes';

/** The API reference, under /v1: the one path outside the route table, public and the same for everyone. */
const OPENAPI_PATH = '/openapi.json';
const METRICS_PATH = '/metrics';
/** Paths outside /v1 that answer GET alone, and 405 to other methods. (The dashboard answers for itself, with pages.) */
const SERVICE_PATHS = [METRICS_PATH, ...HEALTH_PATHS].map((path) => ({ method: 'get', path }));

/**
 * A handler made on its first request. The dashboard's pages (preact and every page's module) load
 * only once someone opens one: an API replica that serves only /v1 never holds them.
 */
function onFirstRequest(make: () => express.RequestHandler): express.RequestHandler {
  let handler: express.RequestHandler | undefined;
  return (req, res, next) => {
    handler ??= make();
    handler(req, res, next);
  };
}

/** Builds the Express app from its dependencies; main.ts and the tests both use it. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', deps.config.trustProxy);
  // docs/decisions.md#http-behaviour-and-secrets-at-rest: /V1/... and /metrics/ are unknown routes; the /v1 router is held to it by its route table.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(observeRequests(deps.logger, deps.metrics));
  app.use(securityHeaders(deps.config.publicBaseUrl));
  app.use(compressResponses());
  app.use(routeGuard(new RouteTable(SERVICE_PATHS), { unknownPaths: 'next' }));
  app.get(METRICS_PATH, metricsEndpoint(deps.metrics));
  app.use(healthRoutes(deps));
  app.use(
    '/dashboard',
    onFirstRequest(() => {
      const { dashboardRouter } = require('./dashboard/router') as typeof import('./dashboard/router');
      return dashboardRouter(deps);
    }),
  );
  // Built on first request: converting every schema is the dearest part of building the app.
  let openApi: string | undefined;
  app.use(docsPage());

  const v1 = Router({ caseSensitive: true, strict: true });
  v1.use(routeGuard(new RouteTable([...publicRoutes, ...apiRoutes, { method: 'get', path: OPENAPI_PATH }, { method: 'get', path: STREAM_PATH }])));
  v1.get(OPENAPI_PATH, (_req, res) => {
    openApi ??= JSON.stringify(apiDocument(deps.config.publicBaseUrl));
    res.type('json').send(openApi);
  });
  v1.use(noStore);
  mountPublicRoutes(v1, deps, publicRoutes);
  v1.use(authenticate(deps.unscoped, deps.keyCache, new FailedAuthThrottle(deps.config.authFailuresPerMinute)));
  v1.use(dailyQuotaLimiter(deps.redis, deps.config.redisPrefix, deps.logger));
  v1.get(STREAM_PATH, streamEvents(deps));
  mountRoutes(v1, deps, apiRoutes);
  app.use('/v1', v1);

  app.use(unknownRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
