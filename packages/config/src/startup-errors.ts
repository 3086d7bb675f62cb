import { ConfigError } from './env-schema';
import { isUnreachable } from './unreachable';

export interface StartupErrorContext {
  /** Named (host, port, database; never the password) when the database cannot be used. */
  databaseUrl?: string;
  /** The setting that chooses the port a failed listen tried. */
  portSetting?: string;
}

/**
 * What an operator needs from a failure at start or in the CLI: one line saying what to do, not a
 * stack trace. Anything unrecognised keeps its stack: that is a bug to report, not a setting to fix.
 */
function describeStartupError(err: unknown, context: StartupErrorContext = {}): string {
  if (err instanceof ConfigError) return `${err.message}. Fix it in the environment or in .env (.env.example lists every setting).`;
  const e = err as { code?: unknown; port?: unknown; address?: unknown } | null;
  if (e?.code === 'EADDRINUSE') {
    return `Cannot listen on ${String(e.address)}:${String(e.port)}: the port is in use. Set ${context.portSetting ?? 'the port setting'} to a free port, or stop what holds it.`;
  }
  const database = context.databaseUrl ? describeDatabase(context.databaseUrl) : 'the database';
  switch (databaseProblem(err)) {
    case 'missing':
      return `${capitalize(database)} does not exist. Run \`pnpm db:migrate\` to create it, or set DATABASE_URL to an existing one.`;
    case 'not migrated':
      return `${capitalize(database)} has no tables yet. Run \`pnpm db:migrate\`.`;
    case 'denied':
      return `PostgreSQL refused the user or password of DATABASE_URL for ${database}. Fix DATABASE_URL.`;
    case 'unreachable':
      return `Cannot reach ${database}. Check DATABASE_URL and that PostgreSQL is running.`;
    default:
      return err instanceof Error ? (err.stack ?? err.message) : String(err);
  }
}

/** Prints the one line for a failure at start and exits 1. */
export function exitOnStartupError(err: unknown, context: StartupErrorContext = {}): never {
  console.error(describeStartupError(err, context));
  process.exit(1);
}

type DatabaseProblem = 'missing' | 'not migrated' | 'denied' | 'unreachable';

/** Postgres's SQLSTATEs and Prisma's codes for the same failures (Prisma wraps the driver's error). */
const DATABASE_CODES: Record<string, DatabaseProblem> = {
  '3D000': 'missing',
  P1003: 'missing',
  '42P01': 'not migrated',
  P2021: 'not migrated',
  '28000': 'denied',
  '28P01': 'denied',
  P1000: 'denied',
  P1010: 'denied',
  P1001: 'unreachable',
  P1002: 'unreachable',
};

function databaseProblem(err: unknown): DatabaseProblem | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const problem = typeof e.code === 'string' ? DATABASE_CODES[e.code] : undefined;
    if (problem) return problem;
  }
  return isUnreachable(err) ? 'unreachable' : undefined;
}

/** `the database "worktrack" at 127.0.0.1:5432`, never the password. */
function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `the database "${decodeURIComponent(parsed.pathname.slice(1))}" at ${parsed.host}`;
  } catch {
    return 'the database of DATABASE_URL';
  }
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
