import type { ApiErrorBody } from './types.js';

/**
 * A non-2xx answer, as an exception: the contract's error body (`code`, `message`, `param`,
 * `type`), the status and the `X-Request-Id` to quote to support. Thrown by `list`, `pages` and
 * `unwrap`; the plain methods (`GET`, `POST`, ...) return `{ error }` instead.
 */
export class WorktrackApiError extends Error {
  override readonly name = 'WorktrackApiError';
  readonly status: number;
  /** `invalid_request`, `not_found`, `rate_limited`, ... (docs/decisions.md#errors); `http_<status>` when the body is not the contract's. */
  readonly code: string;
  readonly type: string;
  /** The offending field, when there is one. */
  readonly param: string | null;
  readonly requestId: string | null;
  /** A bulk request's failing items, each named by its index (empty for any other error). */
  readonly errors: NonNullable<ApiErrorBody['error']['errors']>;
  /** The body as received. */
  readonly body: unknown;
  readonly response: Response;

  constructor(response: Response, body: unknown) {
    const error = isErrorBody(body) ? body.error : undefined;
    super(error?.message ?? `HTTP ${response.status}`);
    this.status = response.status;
    this.code = error?.code ?? `http_${response.status}`;
    this.type = error?.type ?? 'api_error';
    this.param = error?.param ?? null;
    this.errors = error?.errors ?? [];
    this.requestId = response.headers.get('x-request-id');
    this.body = body;
    this.response = response;
  }
}

function isErrorBody(body: unknown): body is ApiErrorBody {
  const error = (body as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  return typeof error === 'object' && error !== null && typeof error.code === 'string' && typeof error.message === 'string';
}

/** What the plain methods resolve to (openapi-fetch's result). */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or a `WorktrackApiError`:
 * `const task = await unwrap(client.GET('/v1/tasks/{taskId}', { params: { path: { taskId } } }))`.
 */
export async function unwrap<R extends FetchResult>(call: R | Promise<R>): Promise<R extends { data: infer Data } ? Data : never> {
  const { data, error, response } = await call;
  if (!response.ok) throw new WorktrackApiError(response, error);
  return data as R extends { data: infer Data } ? Data : never;
}
