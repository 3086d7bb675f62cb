import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { once } from 'node:events';
import path from 'node:path';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { unreadyDependencies } from '@worktrack/config';
import type { UnscopedData } from '@worktrack/db';
import type { Registry } from '@worktrack/metrics';

export interface HealthServerDeps {
  data: UnscopedData;
  redis: Redis;
  metrics: Registry;
  queues: Queue[];
  /** True once SIGTERM arrived: /readyz answers 503 so that nothing new is routed here. */
  draining: () => boolean;
}

export interface HealthServerOptions {
  host: string;
  port: number;
  /** With a token, /queues asks for it and allows actions (retry, clean, ...); without, it is read-only. */
  dashboardToken: string | null;
}

const errorBody = (code: string, message: string, type: string) => ({ error: { code, message, param: null, type } });

/** The production bundle carries Bull Board's UI files beside it; in development they come from node_modules. */
function bullBoardUiDir(): string {
  const beside = path.join(__dirname, 'bull-board-ui');
  return existsSync(beside) ? beside : path.dirname(require.resolve('@bull-board/ui/package.json'));
}

/** HTTP Basic or Bearer, with the token as the password: browsers then ask for it themselves. */
function requireToken(token: string): RequestHandler {
  const accepted = new Set([`Bearer ${token}`, `Basic ${Buffer.from(`admin:${token}`).toString('base64')}`]);
  return (req, res, next) => {
    if (accepted.has(req.get('authorization') ?? '')) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="worktrack queues"');
    res.status(401).json(errorBody('unauthenticated', 'The queue dashboard needs QUEUE_DASHBOARD_TOKEN (user admin)', 'authentication_error'));
  };
}

function queueDashboard(queues: Queue[], token: string | null): express.Router {
  const adapter = new ExpressAdapter().setBasePath('/queues');
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: token === null })),
    serverAdapter: adapter,
    options: { uiBasePath: bullBoardUiDir() },
  });
  const router = express.Router();
  if (token !== null) router.use(requireToken(token));
  router.use(adapter.getRouter() as RequestHandler);
  return router;
}

/** The worker's own small port: `/healthz`, `/readyz`, `/metrics` and the queue dashboard at `/queues`. */
export async function startHealthServer(deps: HealthServerDeps, options: HealthServerOptions): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (deps.draining()) return void res.status(503).json(errorBody('unavailable', 'Not ready: shutting down', 'api_error'));
    const down = await unreadyDependencies({ database: deps.data.ping, redis: () => deps.redis.ping() });
    if (down.length > 0) return void res.status(503).json(errorBody('unavailable', `Not ready: ${down.join(', ')} unreachable`, 'api_error'));
    res.json({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.contentType).send(await deps.metrics.metrics());
  });
  app.use('/queues', queueDashboard(deps.queues, options.dashboardToken));
  app.use((_req, res) => {
    res.status(404).json(errorBody('not_found', 'Unknown route', 'not_found_error'));
  });

  const server = app.listen(options.port, options.host);
  await once(server, 'listening');
  return server;
}
