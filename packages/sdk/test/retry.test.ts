import { createClient, parseRetryAfter, randomIdempotencyKey, retryDelay, type RetryPolicy } from '../src/index.js';
import { sleep } from '../src/retry.js';

const policy: RetryPolicy = { maxRetries: 2, maxRetryDelayMs: 60_000 };
const NOW = Date.parse('2026-11-21T10:00:00.000Z');
const answer = (status: number, retryAfter?: string) => ({ status, headers: new Headers(retryAfter === undefined ? {} : { 'Retry-After': retryAfter }) });
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', 1_000],
    [' 120 ', 120_000],
    ['Sat, 21 Nov 2026 10:00:30 GMT', 30_000],
    ['Sat, 21 Nov 2026 09:00:00 GMT', 0],
    ['soon', null],
    ['-1', null],
    ['1.5', null],
  ])('%j → %j ms', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it('is null without the header', () => {
    expect(parseRetryAfter(null, NOW)).toBeNull();
  });
});

describe('retryDelay', () => {
  it.each([
    { what: '429 with Retry-After: 1', status: 429, retryAfter: '1', attempt: 0, expected: 1_000 },
    { what: '503 with Retry-After: 0', status: 503, retryAfter: '0', attempt: 0, expected: 0 },
    { what: 'the last allowed retry', status: 429, retryAfter: '2', attempt: 1, expected: 2_000 },
    { what: 'retries spent', status: 429, retryAfter: '1', attempt: 2, expected: null },
    { what: 'a Retry-After beyond the bound (the daily quota)', status: 429, retryAfter: '3600', attempt: 0, expected: null },
    { what: 'exactly the bound', status: 429, retryAfter: '60', attempt: 0, expected: 60_000 },
    { what: '500 (not retried: the server may have acted)', status: 500, retryAfter: '1', attempt: 0, expected: null },
    { what: '502', status: 502, retryAfter: undefined, attempt: 0, expected: null },
    { what: '200', status: 200, retryAfter: undefined, attempt: 0, expected: null },
    { what: '409', status: 409, retryAfter: undefined, attempt: 0, expected: null },
  ])('$what → $expected', ({ status, retryAfter, attempt, expected }) => {
    expect(retryDelay(answer(status, retryAfter), attempt, policy, NOW)).toBe(expected);
  });

  it('backs off exponentially with jitter when no Retry-After is given, within the bound', () => {
    const delays = (random: number) =>
      [0, 1, 2, 3].map((attempt) => retryDelay(answer(503), attempt, { maxRetries: 5, maxRetryDelayMs: 3_000 }, NOW, () => random));
    expect(delays(0)).toEqual([250, 500, 1_000, 1_500]);
    expect(delays(0.999_999)).toEqual([500, 1_000, 2_000, 3_000]);
  });

  it('never retries when maxRetries is 0', () => {
    expect(retryDelay(answer(429, '1'), 0, { maxRetries: 0, maxRetryDelayMs: 60_000 }, NOW)).toBeNull();
  });
});

describe('randomIdempotencyKey', () => {
  it('is a fresh v4 UUID each time', () => {
    const keys = new Set(Array.from({ length: 100 }, randomIdempotencyKey));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(UUID_V4);
  });

  it('falls back to getRandomValues where randomUUID is missing (pages served over plain http)', () => {
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      expect(randomIdempotencyKey()).toMatch(UUID_V4);
    } finally {
      delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    }
    expect(typeof globalThis.crypto.randomUUID).toBe('function');
  });
});

describe('sleep', () => {
  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
  });
});

/** A fetch that answers from a script and records what it was sent, with no server. */
function scripted(...responses: (() => Response)[]) {
  const sent: Request[] = [];
  return {
    sent,
    fetch: async (request: Request) => {
      sent.push(request);
      const next = responses.shift();
      if (!next) throw new Error('no scripted response left');
      return next();
    },
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const rateLimited = (retryAfter: string) =>
  json(429, { error: { code: 'rate_limited', message: 'Daily quota spent', param: null, type: 'rate_limit_error' } }, { 'Retry-After': retryAfter });
const unavailable = json(503, { error: { code: 'unavailable', message: 'Redis is down', param: null, type: 'api_error' } });
const project = { id: 'prj_1', name: 'Launch', description: null, icon: null, color: null, archived: false, archivedAt: null, createdAt: 'x', updatedAt: 'x' };

describe('createClient without a server', () => {
  it('sends the key as a bearer token, accepts a base URL ending in /v1, and keys only POSTs', async () => {
    const api = scripted(json(200, project), json(201, project));
    const sdk = createClient({ baseUrl: 'https://api.example.com/v1/', apiKey: 'tk_live_abc', fetch: api.fetch });
    await sdk.GET('/v1/projects/{projectId}', { params: { path: { projectId: 'prj_1' } } });
    await sdk.POST('/v1/projects', { body: { name: 'Launch' } });
    const [get, post] = api.sent as [Request, Request];
    expect(get.url).toBe('https://api.example.com/v1/projects/prj_1');
    expect(get.headers.get('authorization')).toBe('Bearer tk_live_abc');
    expect(get.headers.get('idempotency-key')).toBeNull();
    expect(post.headers.get('idempotency-key')).toMatch(UUID_V4);
    expect(await post.json()).toEqual({ name: 'Launch' });
  });

  it('keeps an Idempotency-Key the call gives', async () => {
    const api = scripted(json(201, project));
    const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', fetch: api.fetch });
    await sdk.POST('/v1/projects', { body: { name: 'Launch' }, headers: { 'Idempotency-Key': 'order-42' } });
    expect(api.sent[0]!.headers.get('idempotency-key')).toBe('order-42');
  });

  it('retries at most maxRetries times, resending the same body and key, then returns the last answer', async () => {
    const api = scripted(unavailable, unavailable, unavailable, unavailable);
    const waits: number[] = [];
    const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', fetch: api.fetch, maxRetries: 3, sleep: async (ms) => void waits.push(ms) });
    const { data, error, response } = await sdk.POST('/v1/projects', { body: { name: 'Launch' } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(503);
    expect(error?.error.code).toBe('unavailable');
    expect(api.sent).toHaveLength(4);
    expect(waits).toHaveLength(3);
    expect(new Set(api.sent.map((r) => r.headers.get('idempotency-key'))).size).toBe(1);
    expect(await Promise.all(api.sent.map((r) => r.text()))).toEqual(Array(4).fill('{"name":"Launch"}'));
  });

  it('does not wait out a Retry-After longer than maxRetryDelayMs: the 429 comes back at once', async () => {
    const api = scripted(rateLimited('3600'));
    const waits: number[] = [];
    const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', fetch: api.fetch, sleep: async (ms) => void waits.push(ms) });
    const { error, response } = await sdk.GET('/v1/projects');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3600');
    expect(error?.error.code).toBe('rate_limited');
    expect(waits).toEqual([]);
  });

  it('with maxRetries 0 hands back the first 503', async () => {
    const api = scripted(unavailable);
    const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', fetch: api.fetch, maxRetries: 0 });
    expect((await sdk.GET('/v1/projects')).response.status).toBe(503);
    expect(() => createClient({ baseUrl: 'https://api.example.com', maxRetries: -1 })).toThrow(RangeError);
  });

  it('stops waiting between attempts when the call is aborted', async () => {
    const api = scripted(rateLimited('30'));
    const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', fetch: api.fetch });
    const controller = new AbortController();
    const call = sdk.GET('/v1/projects', { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(api.sent).toHaveLength(1);
  });

  it('sends a list in a query parameter comma-separated, as the API reads it', async () => {
    const api = scripted(json(200, { data: [], pagination: { total: 0, limit: 50, offset: 0, hasMore: false } }));
    const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', fetch: api.fetch });
    await sdk.GET('/v1/tasks', { params: { query: { status: ['todo', 'in_progress'], limit: 5 } } });
    expect(new URL(api.sent[0]!.url).search).toBe('?status=todo,in_progress&limit=5');
  });

  it('follows nextCursor when the API pages by cursor, dropping offset', async () => {
    const page = (ids: string[], nextCursor: string | null) =>
      json(200, { data: ids.map((id) => ({ ...project, id })), pagination: { total: 5, limit: 2, offset: 0, hasMore: nextCursor !== null, nextCursor } });
    const api = scripted(page(['prj_1', 'prj_2'], 'c2'), page(['prj_3', 'prj_4'], 'c3'), page(['prj_5'], null));
    const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k', fetch: api.fetch });
    const ids: string[] = [];
    for await (const p of sdk.list('/v1/projects', { query: { limit: 2, offset: 0, archived: true } })) ids.push(p.id);
    expect(ids).toEqual(['prj_1', 'prj_2', 'prj_3', 'prj_4', 'prj_5']);
    expect(api.sent.map((r) => new URL(r.url).search)).toEqual([
      '?limit=2&offset=0&archived=true',
      '?limit=2&archived=true&cursor=c2',
      '?limit=2&archived=true&cursor=c3',
    ]);
  });
});
