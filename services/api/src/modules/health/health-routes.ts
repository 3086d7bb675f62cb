import { Router } from 'express';
import { unreadyDependencies } from '@worktrack/config';
import type { AppDeps } from '../../deps';
import { unavailable } from '../../http/errors';

/** The paths this router serves, with GET alone. */
export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;

/**
 * `/healthz`: the process is up. `/readyz`: the replica can serve: not draining, and Postgres and
 * Redis answer. The object store is checked and reported but does not make a replica unready: an
 * outage of it is every replica's at once, and taking them all out of the load balancer would turn
 * the file routes' own 503 into an outage of the whole API. Neither needs a key.
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
    const serving = down.filter((name) => name !== 'objectStore');
    if (serving.length > 0) throw unavailable(`Not ready: ${serving.join(', ')} unreachable`);
    res.json({ status: 'ok', checks: { database: 'ok', redis: 'ok', objectStore: down.includes('objectStore') ? 'unavailable' : 'ok' } });
  });
  return router;
}
