import { ConfigError } from './env-schema';

/**
 * What an operator needs from a failure at start: one line naming the setting to change, not a
 * stack trace. Anything unrecognised keeps its stack.
 */
export function describeStartupError(err: unknown, context: { databaseUrl?: string; portSetting?: string } = {}): string {
  if (err instanceof ConfigError) return err.message;
  const e = err as { code?: unknown; port?: unknown; address?: unknown; message?: unknown; cause?: unknown } | null;
  if (e?.code === 'EADDRINUSE') {
    return `Cannot listen on ${String(e.address)}:${String(e.port)}: the port is in use. Set ${context.portSetting ?? 'the port setting'} to a free port, or stop what holds it.`;
  }
  if (isDatabaseUnreachable(err)) {
    const where = context.databaseUrl ? ` at ${safeHost(context.databaseUrl)}` : '';
    return `Cannot reach the database${where}. Check DATABASE_URL and that PostgreSQL is running.`;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

function isDatabaseUnreachable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === 'ECONNREFUSED' || e.code === 'P1001' || e.code === '3D000' || e.code === 'ENOTFOUND') return true;
    if (typeof e.message === 'string' && /ECONNREFUSED|Can't reach database|database ".*" does not exist|DatabaseNotReachable/i.test(e.message)) return true;
  }
  return false;
}

/** The host, port and database of a URL, never its password. */
function safeHost(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the configured address';
  }
}
