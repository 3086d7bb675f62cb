import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** The JSON body of a delivery (docs/decisions.md#delivery-requests). */
interface DeliveryJson {
  event: string;
  deliveryId: string;
  webhookId: string;
  timestamp: string;
  data: Record<string, unknown>;
  organization: { id: string; name: string };
  actor: { type: 'user'; userId: string; apiKeyId: string | null } | { type: 'system' };
  test?: boolean;
}

export interface Received {
  /** When it arrived (Date.now()). */
  at: number;
  method: string;
  /** Path and query. */
  url: string;
  /** As Node gives them: names in lower case. */
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed, read when asked for: a request whose body is not JSON throws here, not in the receiver. */
  readonly json: DeliveryJson;
}

/** An answer: 200 with `ok` as text unless told otherwise, at once, after `delayMs`, or once `until` settles (a gate the test opens). */
interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  delayMs?: number;
  until?: Promise<unknown>;
}

/** What the receiver does with the nth request (0-based): a reply, `'hold'` (no answer until closed), or a function writing the response itself. */
export type Script = (n: number, received: Received) => Reply | 'hold' | ((res: ServerResponse) => void);

const scriptOf = (answer: Script | Reply): Script => (typeof answer === 'function' ? answer : () => answer);

/** A real webhook receiver on 127.0.0.1 (port chosen by the OS) that records every request and answers as scripted. */
export async function startReceiver(answer: Script | Reply = {}) {
  let script = scriptOf(answer);
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  /** Requests open now, the most ever open at once, and the TCP connections accepted. */
  const load = { open: 0, maxOpen: 0, connections: 0 };
  const server = http.createServer((req, res) => {
    load.open += 1;
    load.maxOpen = Math.max(load.maxOpen, load.open);
    res.on('close', () => (load.open -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry: Received = {
        at: Date.now(),
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        get json() {
          return JSON.parse(body) as DeliveryJson;
        },
      };
      const n = received.push(entry) - 1;
      for (const wake of waiters.splice(0)) wake();
      const action = script(n, entry);
      if (action === 'hold') return;
      if (typeof action === 'function') return action(res);
      const respond = () => {
        res.statusCode = action.status ?? 200;
        res.setHeader('Content-Type', 'text/plain');
        for (const [name, value] of Object.entries(action.headers ?? {})) res.setHeader(name, value);
        res.end(action.body ?? 'ok'); // Node adds the Content-Length
      };
      if (action.until) void action.until.then(respond, respond);
      else if (action.delayMs) setTimeout(respond, action.delayMs).unref();
      else respond();
    });
  });
  server.on('connection', () => (load.connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    /** http://127.0.0.1:<port> */
    origin: `http://127.0.0.1:${port}`,
    /** The origin's /hooks: where a subscription points. */
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    load,
    /** Answers the requests from now on so: healthy, broken, mended. */
    replyWith(next: Script | Reply): void {
      script = scriptOf(next);
    },
    /** Resolves once at least `count` requests have arrived; fails after the timeout. */
    async waitForCount(count: number, timeoutMs = 15_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error(`receiver got ${received.length} of ${count} requests`);
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
    /** Drops the connections it holds, then stops listening. */
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** `startReceiver`, for receivers closed after each test of the file that calls this at its top level. */
export function receiversClosedAfterEach(): typeof startReceiver {
  const open: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((receiver) => receiver.close()));
  });
  return async (...args) => {
    const receiver = await startReceiver(...args);
    open.push(receiver);
    return receiver;
  };
}

/** A promise with its resolver: a gate that holds a reply (`until`) until the test opens it. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
