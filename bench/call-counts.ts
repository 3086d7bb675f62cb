// Preloaded into a worker a bench starts (`--import`): counts its pg statements and Redis commands,
// a counter per call, as the acceptance method's preload does, and per statement (its prepared name,
// or the start of its text) the calls and the rows they returned or changed. On SIGUSR2 it writes the
// counts so far to BENCH_CALL_COUNTS (a JSON file), which bench/acceptance-deliveries.ts reads around
// its window.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
// Resolved from the packages that use them, so that these are the worker's own module instances.
const pg = createRequire(path.join(root, 'packages/db/package.json'))('pg') as typeof import('pg');
const ioredis = createRequire(path.join(root, 'packages/queue/package.json'))('ioredis') as typeof import('ioredis');

export interface CallCounts {
  signal: number;
  pg: number;
  redis: number;
  statements: Record<string, { calls: number; rows: number }>;
}

const counts: CallCounts = { signal: 0, pg: 0, redis: 0, statements: {} };

function statementOf(config: unknown): { calls: number; rows: number } {
  const key =
    typeof config === 'string'
      ? config.trim().slice(0, 60)
      : ((config as { name?: string; text?: string }).name ?? (config as { text?: string }).text?.trim().slice(0, 60) ?? '?');
  counts.statements[key] ??= { calls: 0, rows: 0 };
  return counts.statements[key];
}

type Result = { rowCount?: number | null } | undefined;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  counts.pg++;
  const statement = statementOf(args[0]);
  statement.calls++;
  const last = args.length - 1;
  const tally = (result: Result) => void (statement.rows += result?.rowCount ?? 0);
  if (typeof args[last] === 'function') {
    const callback = args[last] as (err: unknown, result: Result) => void;
    args[last] = (err: unknown, result: Result) => {
      if (!err) tally(result);
      callback(err, result);
    };
  } else if (typeof (args[0] as { callback?: unknown })?.callback === 'function') {
    const config = args[0] as { callback: (err: unknown, result: Result) => void };
    const callback = config.callback;
    config.callback = (err, result) => {
      if (!err) tally(result);
      callback(err, result);
    };
  }
  const returned = (query as (...a: unknown[]) => unknown).apply(this, args);
  if (returned instanceof Promise) returned.then(tally, () => {});
  return returned;
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
