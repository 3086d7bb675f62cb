import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '@worktrack/config';

export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'unauthenticated'
  | 'forbidden'
  | 'quota_exceeded'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable';

/** DECISIONS §2: every code has one status and one type. */
const CODES: Record<ErrorCode, { status: number; type: string }> = {
  invalid_request: { status: 400, type: 'validation_error' },
  invalid_json: { status: 400, type: 'validation_error' },
  unauthenticated: { status: 401, type: 'authentication_error' },
  forbidden: { status: 403, type: 'permission_error' },
  quota_exceeded: { status: 403, type: 'quota_error' },
  not_found: { status: 404, type: 'not_found_error' },
  conflict: { status: 409, type: 'conflict_error' },
  payload_too_large: { status: 413, type: 'validation_error' },
  unsupported_media_type: { status: 415, type: 'validation_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  unavailable: { status: 503, type: 'api_error' },
};

/** The one error class: only the error middleware turns it into a response. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
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

/** Errors from Postgres, Redis or the object store that mean "a dependency is down", not "a bug". */
function isDependencyOutage(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as Error & { code?: unknown; name: string; cause?: unknown };
  if (e.name === 'StorageUnavailableError' || e.name === 'MaxRetriesPerRequestError') return true;
  if (e.name === 'PrismaClientInitializationError') return true;
  if (typeof e.code === 'string' && ['P1001', 'P1002', 'P1017', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNRESET'].includes(e.code)) return true;
  if (/enableOfflineQueue|Connection is closed|ECONNREFUSED|Can't reach database|connection terminated|timeout exceeded when trying to connect/i.test(e.message))
    return true;
  return e.cause !== undefined && isDependencyOutage(e.cause);
}

/** Errors raised by express's body parser, mapped by their `type`. */
function fromBodyParser(err: { type?: string; status?: number }): ApiError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new ApiError('payload_too_large', 'The request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'Unsupported body encoding or charset');
    default:
      return null;
  }
}

export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (typeof err === 'object' && err !== null) {
    const parsed = fromBodyParser(err as { type?: string });
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

/** DECISIONS §2: the one error body. */
export function errorBody(error: ApiError) {
  return { error: { code: error.code, message: error.message, param: error.param, type: error.type } };
}

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', `Unknown route: ${req.method} ${req.path}`));
};
