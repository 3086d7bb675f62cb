// The webhook receiver, in a process of its own so that the load generator's garbage collection
// never delays the moment an arrival is noted. Answers 200 and notes, per arrival, how long after
// the body's `timestamp` it came; bench/receiver.ts asks for what it noted over IPC. Requests to a
// path ending in `/slow` are a slow receiver's: answered after SLOW_MS, and not noted.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Arrival, ReceiverRequest, ReceiverReply } from './receiver';

let arrivals: Arrival[] = [];
const SLOW_MS = 4_000;

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.url?.endsWith('/slow')) return void setTimeout(() => res.writeHead(200).end(), SLOW_MS);
    const at = Date.now();
    const { timestamp, deliveryId } = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string; deliveryId: string };
    arrivals.push({ at, latencyMs: at - Date.parse(timestamp), deliveryId });
    res.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60_000;

function answer({ id, op }: ReceiverRequest): ReceiverReply {
  if (op === 'count') return { id, count: arrivals.length };
  const taken = arrivals;
  arrivals = [];
  return { id, arrivals: taken };
}

async function main(): Promise<void> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.on('message', (request: ReceiverRequest) => process.send!(answer(request)));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` });
}

void main();
