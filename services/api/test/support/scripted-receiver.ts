import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface Delivered {
  deliveryId: string;
  event: string;
  body: string;
  /** As Node gives them: names in lower case. */
  headers: http.IncomingHttpHeaders;
}

/**
 * A webhook receiver on 127.0.0.1 whose answer can be changed while it runs (`answer = ...`):
 * healthy, broken, mended. It records every delivery it receives.
 */
export async function startScriptedReceiver(initial: Answer = { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'ok' }) {
  const received: Delivered[] = [];
  const state = { answer: initial };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { deliveryId: string; event: string };
      received.push({ deliveryId: parsed.deliveryId, event: parsed.event, body, headers: req.headers });
      const { status, headers = {}, body: answer = '' } = state.answer;
      res.statusCode = status;
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      res.end(answer); // Node adds the Content-Length
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    set answer(answer: Answer) {
      state.answer = answer;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type ScriptedReceiver = Awaited<ReturnType<typeof startScriptedReceiver>>;
