import { Router } from 'express';
import type { AppDeps } from '../../deps';
import { unavailable } from '../../http/errors';

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

/** `/healthz`: the process is up. `/readyz`: Postgres and Redis answer. Neither needs a key. */
export function healthRoutes(deps: Pick<AppDeps, 'db' | 'redis'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks = await Promise.allSettled([withTimeout(deps.db.$queryRaw`SELECT 1`, 2_000), withTimeout(deps.redis.ping(), 2_000)]);
    const down = ['database', 'redis'].filter((_, i) => checks[i]!.status === 'rejected');
    if (down.length > 0) throw unavailable(`Not ready: ${down.join(', ')} unreachable`);
    res.json({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
  });
  return router;
}
