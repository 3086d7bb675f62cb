// The webhook receiver both worktrack and the baseline deliver to: answers 200 and notes, per
// arrival, how long after the body's `timestamp` it came.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  /** Arrival times (ms since epoch) and latencies since the body's timestamp, since the last reset. */
  arrivals: { at: number; latencyMs: number }[];
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals: Receiver['arrivals'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string };
      arrivals.push({ at, latencyMs: at - Date.parse(timestamp) });
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    async waitFor(count, timeoutMs = 300_000) {
      const deadline = Date.now() + timeoutMs;
      while (arrivals.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver: ${arrivals.length} of ${count} deliveries arrived within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => server.close(),
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Calls `send` `perSecond` times a second for `seconds`, in step with the clock. */
export async function paced(perSecond: number, seconds: number, send: () => Promise<void>): Promise<void> {
  const total = Math.round(perSecond * seconds);
  const started = Date.now();
  const inFlight: Promise<void>[] = [];
  for (let sent = 0; sent < total; ) {
    const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * perSecond) + 1);
    for (; sent < due; sent++) inFlight.push(send());
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
}
