import createFetchClient, { type Client } from 'openapi-fetch';
import { WorktrackApiError } from './errors.js';
import { eventsClient, type EventsClient } from './events.js';
import type { paths } from './generated/openapi.js';
import { randomIdempotencyKey } from './idempotency-key.js';
import { DEFAULT_RETRY_POLICY, retryDelay, sleep as realSleep, type RetryPolicy } from './retry.js';
import type { ListItem, ListOptions, ListPage, ListPath } from './types.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

export interface ClientOptions {
  /** The API's origin, e.g. `https://api.example.com` (a trailing `/v1` is accepted too: the paths carry it). */
  baseUrl: string;
  /** `tk_live_...` or `tk_test_...`; sent as `Authorization: Bearer`. Only the public routes (accepting an invitation) do without. */
  apiKey?: string;
  /** The fetch to send with (default: the global one); it receives a `Request`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries after a 429 or 503, per call (default 2). 0 turns retrying off. */
  maxRetries?: number;
  /**
   * The longest wait before one retry, in ms (default 60 000). A `Retry-After` beyond it (the daily
   * quota's, until midnight UTC) is not waited for: the 429 is returned at once.
   */
  maxRetryDelayMs?: number;
  /** How to wait between attempts (default: a timer that the request's signal aborts); tests pass a fake. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Headers sent on every request. */
  headers?: Record<string, string>;
}

/** `list` and `pages` take the path, then its options (required when the path has parameters). */
// biome-ignore lint/complexity/noBannedTypes: `{} extends T` is how a type asks whether T has no required keys
type ListArgs<P extends ListPath> = {} extends ListOptions<P> ? [options?: ListOptions<P>] : [options: ListOptions<P>];

export interface WorktrackClient extends Client<paths> {
  /**
   * Every record of a list, page after page: follows `pagination.nextCursor` when the API gives
   * one, otherwise `offset` while `hasMore`. A failed page throws `WorktrackApiError`.
   */
  list<P extends ListPath>(path: P, ...options: ListArgs<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The same walk, one page (`{ data, pagination }`) at a time. */
  pages<P extends ListPath>(path: P, ...options: ListArgs<P>): AsyncGenerator<ListPage<P>, void, undefined>;
  /** The event feed and the live stream, each resuming where it stopped. */
  events: EventsClient;
}

interface Pagination {
  offset?: number;
  hasMore?: boolean;
  nextCursor?: string | null;
}

/**
 * A typed client of the worktrack API (openapi-fetch over the generated `paths`): `client.GET`,
 * `POST`, `PATCH`, `DELETE` resolve to `{ data }` or `{ error }` with the types of the document.
 *
 * Every POST carries an `Idempotency-Key` (a random UUID unless the call sets one), and a 429 or
 * 503 is retried with the same key after the `Retry-After` the server asked for (bounded by
 * `maxRetries` and `maxRetryDelayMs`), so a retried creation happens once.
 */
export function createClient(options: ClientOptions): WorktrackClient {
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxRetryDelayMs,
  };
  if (!Number.isInteger(policy.maxRetries) || policy.maxRetries < 0) throw new RangeError('maxRetries must be a whole number, 0 or more');
  // Bound late, so a fetch replaced after creation (polyfills, test mocks) is the one used.
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const wait = options.sleep ?? realSleep;

  async function fetchWithRetries(request: Request): Promise<Response> {
    if (request.method === 'POST' && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
      request.headers.set(IDEMPOTENCY_KEY_HEADER, randomIdempotencyKey());
    }
    for (let attempt = 0; ; attempt += 1) {
      // Each attempt sends a copy, so the body can go again; every copy carries the same key.
      const response = await send(attempt < policy.maxRetries ? request.clone() : request);
      const delay = retryDelay(response, attempt, policy, Date.now());
      if (delay === null) return response;
      await response.body?.cancel().catch(() => undefined);
      await wait(delay, request.signal);
    }
  }

  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const headers = { ...(options.apiKey && { Authorization: `Bearer ${options.apiKey}` }), ...options.headers };
  const client = createFetchClient<paths>({
    baseUrl,
    fetch: fetchWithRetries,
    // The API takes lists in one parameter, comma-separated (`status=todo,in_progress`, docs/decisions.md#task-filters).
    querySerializer: { array: { style: 'form', explode: false } },
    headers,
  });

  async function* pages(path: string, listOptions: LooseListOptions = {}): AsyncGenerator<{ data: unknown[]; pagination: Pagination }> {
    const { query = {}, path: pathParams, signal, headers } = listOptions;
    let pageQuery: Record<string, unknown> = { ...query };
    for (;;) {
      const init = { params: { query: pageQuery, path: pathParams }, signal, headers };
      const { data, error, response } = await (client.GET as unknown as LooseGet)(path, init);
      if (!response.ok) throw new WorktrackApiError(response, error);
      const page = data as { data: unknown[]; pagination: Pagination };
      yield page;
      const { nextCursor, hasMore, offset } = page.pagination;
      if (nextCursor !== undefined) {
        // A cursor-paged list: follow it to the end (null on the last page). `cursor` excludes `offset`.
        if (nextCursor === null || nextCursor === '') return;
        const { offset: _dropped, ...rest } = pageQuery;
        pageQuery = { ...rest, cursor: nextCursor };
      } else {
        if (!hasMore || page.data.length === 0) return;
        pageQuery = { ...pageQuery, offset: (offset ?? 0) + page.data.length };
      }
    }
  }

  async function* list(path: string, listOptions?: LooseListOptions): AsyncGenerator<unknown> {
    for await (const page of pages(path, listOptions)) yield* page.data;
  }

  const events = eventsClient({ baseUrl, headers, send: fetchWithRetries, sleep: wait });
  return Object.assign(client, { pages, list, events }) as unknown as WorktrackClient;
}

interface LooseListOptions {
  query?: Record<string, unknown>;
  path?: Record<string, unknown>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

type LooseGet = (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
