import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** When it arrived (Date.now()). */
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: {
    event: string;
    deliveryId: string;
    webhookId: string;
    timestamp: string;
    data: Record<string, unknown>;
    organization: { id: string; name: string };
    test?: boolean;
  };
}

/**
 * What the receiver does with the nth request (0-based): answer a status with extra headers, possibly
 * after a delay or once `until` settles (a gate the test opens), or hold it open.
 */
export type Behaviour = (
  n: number,
  received: Received,
) => { status: number; headers?: Record<string, string>; delayMs?: number; until?: Promise<unknown> } | 'hold';

/** A real HTTP receiver on 127.0.0.1 that records every delivery it gets. */
export async function startReceiver(behaviour: Behaviour = () => ({ status: 200 })) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  /** Requests open now, and the most ever open at once. */
  const load = { open: 0, maxOpen: 0 };
  const server = http.createServer((req, res) => {
    load.open += 1;
    load.maxOpen = Math.max(load.maxOpen, load.open);
    res.on('close', () => (load.open -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry = { at: Date.now(), headers: req.headers, body, json: JSON.parse(body) as Received['json'] };
      const n = received.push(entry) - 1;
      for (const wake of waiters.splice(0)) wake();
      const action = behaviour(n, entry);
      if (action === 'hold') return;
      const answer = () => res.writeHead(action.status, { 'Content-Type': 'text/plain', ...action.headers }).end('ok');
      if (action.until) void action.until.then(answer, answer);
      else if (action.delayMs) setTimeout(answer, action.delayMs).unref();
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    load,
    /** Resolves once at least `count` requests have arrived; fails after the timeout. */
    async waitForCount(count: number, timeoutMs = 15_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error(`receiver got ${received.length} of ${count} deliveries`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `startReceiver`, for receivers closed after each test of the file that calls this at its top level. */
export function receiversClosedAfterEach(): typeof startReceiver {
  const open: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((close) => close()));
  });
  return async (...args) => {
    const receiver = await startReceiver(...args);
    open.push(receiver.close);
    return receiver;
  };
}
