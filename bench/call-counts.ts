// Preloaded into a worker a bench starts (`--import`): counts its pg statements and Redis commands,
// a counter per call, as the acceptance method's preload does. On SIGUSR2 it writes the counts so far
// to BENCH_CALL_COUNTS (a JSON file), which bench/acceptance-deliveries.ts reads around its window.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
// Resolved from the packages that use them, so that these are the worker's own module instances.
const pg = createRequire(path.join(root, 'packages/db/package.json'))('pg') as typeof import('pg');
const ioredis = createRequire(path.join(root, 'packages/queue/package.json'))('ioredis') as typeof import('ioredis');

const counts = { signal: 0, pg: 0, redis: 0 };
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  counts.pg++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;
const sendCommand = ioredis.Redis.prototype.sendCommand;
ioredis.Redis.prototype.sendCommand = function (this: unknown, ...args: unknown[]) {
  counts.redis++;
  return (sendCommand as (...a: unknown[]) => unknown).apply(this, args);
} as typeof sendCommand;

process.on('SIGUSR2', () => {
  counts.signal++;
  writeFileSync(process.env.BENCH_CALL_COUNTS!, JSON.stringify(counts));
});
