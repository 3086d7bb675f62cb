import { Router } from 'express';
import { unreadyDependencies } from '@worktrack/config';
import type { AppDeps } from '../../deps';
import { unavailable } from '../../http/errors';

/** The paths this router serves, with GET alone. */
export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;

/**
 * `/healthz`: the process is up. `/readyz`: not draining, and Postgres, Redis and the object store
 * answer. Neither needs a key.
 */
export function healthRoutes(deps: Pick<AppDeps, 'unscoped' | 'redis' | 'store' | 'draining'>): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (deps.draining()) throw unavailable('Not ready: shutting down');
    const down = await unreadyDependencies({
      database: deps.unscoped.ping,
      redis: () => deps.redis.ping(),
      objectStore: () => deps.store.ping(),
    });
    if (down.length > 0) throw unavailable(`Not ready: ${down.join(', ')} unreachable`);
    res.json({ status: 'ok', checks: { database: 'ok', redis: 'ok', objectStore: 'ok' } });
  });
  return router;
}
