import { Router } from 'express';
import { unreadyDependencies } from '@worktrack/config';
import type { AppDeps } from '../../deps';
import { unavailable } from '../../http/errors';

/** `/healthz`: the process is up. `/readyz`: Postgres and Redis answer. Neither needs a key. */
export function healthRoutes(deps: Pick<AppDeps, 'db' | 'redis'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const down = await unreadyDependencies({ database: () => deps.db.$queryRaw`SELECT 1`, redis: () => deps.redis.ping() });
    if (down.length > 0) throw unavailable(`Not ready: ${down.join(', ')} unreachable`);
    res.json({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
  });
  return router;
}
