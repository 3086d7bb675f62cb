import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '@worktrack/config';

export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'unauthenticated'
  | 'forbidden'
  | 'quota_exceeded'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'precondition_failed'
  | 'cursor_expired'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'headers_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable';

/** docs/decisions.md#errors: every code has one status and one type. */
const CODES: Record<ErrorCode, { status: number; type: string }> = {
  invalid_request: { status: 400, type: 'validation_error' },
  invalid_json: { status: 400, type: 'validation_error' },
  unauthenticated: { status: 401, type: 'authentication_error' },
  forbidden: { status: 403, type: 'permission_error' },
  quota_exceeded: { status: 403, type: 'quota_error' },
  not_found: { status: 404, type: 'not_found_error' },
  method_not_allowed: { status: 405, type: 'validation_error' },
  conflict: { status: 409, type: 'conflict_error' },
  precondition_failed: { status: 412, type: 'conflict_error' },
  // docs/decisions.md#history-actors-and-live-events: a feed cursor older than the events' retention.
  cursor_expired: { status: 410, type: 'validation_error' },
  payload_too_large: { status: 413, type: 'validation_error' },
  unsupported_media_type: { status: 415, type: 'validation_error' },
  // docs/decisions.md#errors: Node's HTTP parser refuses a request line and headers over 16 KB before Express sees them.
  headers_too_large: { status: 431, type: 'validation_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  unavailable: { status: 503, type: 'api_error' },
};

export const errorStatus = (code: ErrorCode): number => CODES[code].status;

/** Every code and every type an error body can carry, for the OpenAPI document. */
export const ERROR_CODES = Object.keys(CODES) as ErrorCode[];
export const ERROR_TYPES = [...new Set(Object.values(CODES).map(({ type }) => type))];

/** One failing item of a bulk request (docs/decisions.md#bulk-task-operations). */
export interface ItemError {
  index: number;
  code: ErrorCode;
  param: string | null;
  message: string;
}

/** The one error class: only the error middleware turns it into a response. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
    /** A bulk request's failing items, every one. */
    readonly errors?: ItemError[],
  ) {
    super(message);
    this.status = CODES[code].status;
    this.type = CODES[code].type;
  }
}

export const invalid = (param: string | null, message: string) => new ApiError('invalid_request', message, param);
export const notFound = (param: string | null, message = 'No such resource') => new ApiError('not_found', message, param);
export const conflict = (message: string, param: string | null = null) => new ApiError('conflict', message, param);
export const forbidden = (message: string, param: string | null = null) => new ApiError('forbidden', message, param);
export const unavailable = (message: string) => new ApiError('unavailable', message);

const OUTAGE_NAMES = new Set(['StorageUnavailableError', 'MaxRetriesPerRequestError', 'PrismaClientInitializationError']);
/**
 * Prisma's codes for an unreachable database, a closed connection, a socket timeout, too many
 * connections, a transaction that could not get a connection in time (the database away or
 * saturated, as while a failover moves the connections); Node's socket errors.
 */
const OUTAGE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2028', 'P2037', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNRESET']);
/**
 * Postgres SQLSTATEs: connection exceptions, a server shutting down or starting up, too many
 * connections, and a write refused by a read-only server (during a failover, a standby not yet
 * promoted answers where the primary was).
 */
const POSTGRES_OUTAGE = /^(?:08[0-9A-Z]{3}|57P0[123]|53300|25006)$/;
const OUTAGE_MESSAGE =
  /enableOfflineQueue|Connection is closed|ECONNREFUSED|Can't reach database|connection terminated|not queryable|timeout exceeded when trying to connect/i;

/**
 * Errors from Postgres, Redis or the object store that mean "a dependency is down", not "a bug".
 * Prisma reports a Postgres error of a raw query as P2010 and of another query as P2039, keeping
 * the driver adapter's error, whose cause holds the SQLSTATE, in meta.driverAdapterError.
 */
function isDependencyOutage(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const e = err as { name?: unknown; code?: unknown; originalCode?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
  if (OUTAGE_NAMES.has(String(e.name)) || OUTAGE_CODES.has(String(e.code))) return true;
  if ([e.code, e.originalCode].some((code) => typeof code === 'string' && POSTGRES_OUTAGE.test(code))) return true;
  if (typeof e.message === 'string' && OUTAGE_MESSAGE.test(e.message)) return true;
  return isDependencyOutage(e.cause, depth + 1) || isDependencyOutage(e.meta?.driverAdapterError, depth + 1);
}

/**
 * Errors raised by express's router and body parser: by their `type`, else any other the body
 * parser marks as the client's (a compressed body that does not decompress, a body shorter than
 * its Content-Length), and the router's undecodable %-escape in a path.
 */
function fromExpress(err: { type?: unknown; status?: unknown; name?: unknown }): ApiError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new ApiError('payload_too_large', 'The request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'Unsupported body encoding or charset');
  }
  if (err.name === 'URIError') return invalid(null, 'The request path contains a malformed %-escape');
  if (err.status === 400) return new ApiError('invalid_json', 'The request body could not be read: it is corrupt, truncated or not in its Content-Encoding');
  return null;
}

export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (typeof err === 'object' && err !== null) {
    const parsed = fromExpress(err);
    if (parsed) return parsed;
  }
  if (isDependencyOutage(err)) return unavailable('A backing service is unavailable; retry later');
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let apiError = toApiError(err);
    if (!apiError) {
      logger.error({ err, requestId: req.requestId, method: req.method, path: req.path }, 'unhandled error');
      apiError = new ApiError('internal_error', `An internal error occurred (request ${req.requestId})`);
    } else if (apiError.status >= 500) {
      logger.warn({ err, requestId: req.requestId }, apiError.message);
    }
    if (res.headersSent) return;
    res.status(apiError.status).json(errorBody(apiError));
  };
}

/** docs/decisions.md#errors: the one error body. */
export function errorBody(error: ApiError) {
  return { error: { code: error.code, message: error.message, param: error.param, type: error.type, ...(error.errors && { errors: error.errors }) } };
}

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', `Unknown route: ${req.method} ${req.path}`));
};
