// The delivery baseline: a bare BullMQ job loop in a process of its own, as the worker runs. Each
// job carries a delivery body, signs it and POSTs it with undici to the receiver; no database.
import { createHmac } from 'node:crypto';
import { Worker } from 'bullmq';
import { Agent, request } from 'undici';
import { loadWorkerConfig } from '@worktrack/config';
import { createRedisConnection } from '../packages/queue/src';

const connection = createRedisConnection(loadWorkerConfig().redis, 'worker', 'bench-baseline-worker');
const agent = new Agent({ keepAliveTimeout: 4_000 });
const queue = process.env.BENCH_QUEUE!;
const receiver = process.env.BENCH_RECEIVER!;
const secret = process.env.BENCH_SECRET!;

const worker = new Worker<{ body: string }>(
  queue,
  async (job) => {
    const { body } = job.data;
    const res = await request(receiver, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
      body,
    });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`receiver answered ${res.statusCode}`);
  },
  { connection, prefix: process.env.BENCH_PREFIX!, concurrency: 50, removeOnComplete: { count: 1_000 }, removeOnFail: { count: 5_000 } },
);
worker.on('ready', () => process.send?.('ready'));
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
