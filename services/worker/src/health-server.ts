import http from 'node:http';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { unreadyDependencies } from '@worktrack/config';
import type { Db } from '@worktrack/db';

/** `/healthz` (process up) and `/readyz` (Postgres and Redis answer) on the worker's own small port. */
export async function startHealthServer(deps: { db: Db; redis: Redis }, host: string, port: number): Promise<http.Server> {
  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: object) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.url === '/healthz') return send(200, { status: 'ok' });
    if (req.url === '/readyz') {
      const down = await unreadyDependencies({ database: () => deps.db.$queryRaw`SELECT 1`, redis: () => deps.redis.ping() });
      if (down.length === 0) return send(200, { status: 'ok', checks: { database: 'ok', redis: 'ok' } });
      return send(503, { error: { code: 'unavailable', message: `Not ready: ${down.join(', ')} unreachable`, param: null, type: 'api_error' } });
    }
    send(404, { error: { code: 'not_found', message: 'Unknown route', param: null, type: 'not_found_error' } });
  });
  server.listen(port, host);
  await once(server, 'listening');
  return server;
}
