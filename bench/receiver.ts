// The webhook receiver both worktrack and the baseline deliver to (bench/receiver-process.ts, a
// process of its own), and the load's pacing and percentiles.
import { startChild } from './children';

export interface Arrival {
  /** When it arrived (ms since epoch). */
  at: number;
  /** How long after its body's timestamp. */
  latencyMs: number;
  /** The body's `deliveryId`. */
  deliveryId: string;
}

export type ReceiverRequest = { id: number; op: 'count' | 'take' };
export type ReceiverReply = { id: number; count: number } | { id: number; arrivals: Arrival[] };

export interface Receiver {
  url: string;
  /** The arrivals since the last take, and a fresh start. */
  take(): Promise<Arrival[]>;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const child = await startChild('receiver-process.ts', {}, { pin: false });
  const { url } = child.ready as { url: string };
  const waiting = new Map<number, { resolve: (reply: ReceiverReply) => void; reject: (err: Error) => void }>();
  child.process.on('message', (reply: ReceiverReply) => {
    waiting.get(reply.id)?.resolve(reply);
    waiting.delete(reply.id);
  });
  child.process.once('exit', (code) => {
    for (const { reject } of waiting.values()) reject(new Error(`the receiver exited (${code})`));
  });
  let lastId = 0;
  const ask = (op: ReceiverRequest['op']) =>
    new Promise<ReceiverReply>((resolve, reject) => {
      const id = ++lastId;
      waiting.set(id, { resolve, reject });
      child.process.send({ id, op } satisfies ReceiverRequest);
    });
  return {
    url,
    take: async () => ((await ask('take')) as { arrivals: Arrival[] }).arrivals,
    async waitFor(count, timeoutMs = 300_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const arrived = ((await ask('count')) as { count: number }).count;
        if (arrived >= count) return;
        if (Date.now() > deadline) throw new Error(`receiver: ${arrived} of ${count} deliveries arrived within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => child.stop(),
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
