/** Socket errors of a server that cannot be reached at all, as opposed to one that refused a command. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE']);

/** What pg, Prisma, ioredis and BullMQ say instead of a socket error code once a connection is gone. */
const UNREACHABLE_MESSAGES =
  /ECONNREFUSED|ENOTFOUND|Can't reach database|Connection terminated|Connection is closed|Stream isn't writeable|max retries per request|All sentinels are unreachable|None of startup nodes is available|Failed to refresh slots cache/i;

/** Whether an error (or what it wraps: `cause`, or every error of an AggregateError) says a server could not be reached. */
export function isUnreachable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return true;
  if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((inner) => isUnreachable(inner, depth + 1))) return true;
  return isUnreachable(e.cause, depth + 1);
}
