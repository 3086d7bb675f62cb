import pino from 'pino';
import { traceFields, tracingEnabled } from '@worktrack/telemetry';

export type Logger = pino.Logger;
export type LogFormat = 'json' | 'pretty';

/** Whatever the line, these never reach the logs. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  '*.authorization',
  '*.secret',
  '*.previousSecret',
  '*.token',
  '*.key',
  '*.apiKey',
  '*.password',
];

/**
 * JSON lines on stdout (or `destination`); `pretty` for people reading a terminal. Stdout is written
 * asynchronously: lines logged while a write is under way go out together in the next one, instead
 * of a system call each (the worker logs every delivery attempt); pino flushes what is left at exit.
 * When the process traces, each line carries the active span's `traceId` and `spanId`.
 */
export function createLogger(level: string, name: string, format: LogFormat = 'json', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    name,
    base: { service: name },
    redact: { paths: REDACTED, censor: '[redacted]' },
    ...(tracingEnabled() && { mixin: traceFields }),
  };
  if (format === 'pretty') {
    // Loaded for a terminal only: a service writing JSON lines never needs it.
    const pretty = require('pino-pretty') as typeof import('pino-pretty');
    return pino(options, pretty({ colorize: destination === undefined && process.stdout.isTTY, sync: true, ...(destination && { destination }) }));
  }
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
