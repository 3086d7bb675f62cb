import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response as SupertestResponse } from 'supertest';
import { runDocument } from '@test-support/run-document.js';
import { Conformance } from '@test-support/openapi-conformance.js';
import { createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness.js';
import { bulkTasks, createClient, unwrap, WorktrackApiError, type ClientOptions, type Task, type WorktrackClient } from '../src/index.js';

let h: Harness;
let server: Server;
let baseUrl: string;
let org: TestOrg;
let conformance: Conformance;

beforeAll(async () => {
  h = createHarness();
  server = h.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  org = await createOrg(h.db);
  conformance = new Conformance(runDocument(), runResponseValidators());
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

/**
 * The real fetch, with every answer of the API checked against the document it serves (as the
 * shared supertest client does for the other suites).
 */
async function checkedFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  const text = await response.clone().text();
  const body: unknown = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {};
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  conformance.check(request.method, request.url, { status: response.status, body, text, headers } as SupertestResponse);
  return response;
}

/** The client against the running app, recording every request it sends. */
function sdkFor(key: string, options: Partial<ClientOptions> = {}): { sdk: WorktrackClient; sent: Request[] } {
  const sent: Request[] = [];
  const send = options.fetch ?? checkedFetch;
  const sdk = createClient({
    baseUrl,
    apiKey: key,
    ...options,
    fetch: (request) => {
      sent.push(request);
      return send(request);
    },
  });
  return { sdk, sent };
}

async function newProject(sdk: WorktrackClient, name = 'Launch'): Promise<string> {
  return (await unwrap(sdk.POST('/v1/projects', { body: { name } }))).id;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the SDK against the running API', () => {
  it('creates a project and a task, and reads the task back, typed', async () => {
    const { sdk, sent } = sdkFor(org.liveKey);
    const { data: project, error, response } = await sdk.POST('/v1/projects', { body: { name: 'Launch', color: '#1a2b3c' } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    expect(project).toMatchObject({ id: expect.stringMatching(/^prj_/), name: 'Launch', color: '#1a2b3c', archived: false });

    const task: Task = await unwrap(sdk.POST('/v1/tasks', { body: { title: 'Write the post', projectId: project!.id, priority: 'high' } }));
    expect(task).toMatchObject({ title: 'Write the post', projectId: project!.id, priority: 'high', status: 'todo', customFields: {} });

    const read = await unwrap(sdk.GET('/v1/tasks/{taskId}', { params: { path: { taskId: task.id } } }));
    expect(read).toEqual(task);
    expect(sent.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(['POST /v1/projects', 'POST /v1/tasks', `GET /v1/tasks/${task.id}`]);
    expect(sent.filter((r) => r.method === 'POST').map((r) => r.headers.get('idempotency-key'))).toEqual([
      expect.stringMatching(UUID_V4),
      expect.stringMatching(UUID_V4),
    ]);
  });

  it('answers errors as { error } with the contract body, or throws WorktrackApiError through unwrap', async () => {
    const { sdk } = sdkFor(org.liveKey);
    const missing = await sdk.GET('/v1/tasks/{taskId}', { params: { path: { taskId: 'tsk_01JD2X5K8Y3V4M7N9P0Q1R2S3T' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error).toMatchObject({ code: 'not_found', type: 'not_found_error' });

    const invalid = await unwrap(sdk.POST('/v1/projects', { body: { name: '' } })).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(WorktrackApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', type: 'validation_error', param: 'name', requestId: expect.any(String) });

    const { sdk: anonymous } = sdkFor('tk_live_not_a_real_key_at_all_000000');
    expect((await anonymous.GET('/v1/projects')).error?.error.code).toBe('unauthenticated');
  });

  it('lists every record across several pages with the iterator, following the cursors', async () => {
    const { sdk, sent } = sdkFor(org.liveKey);
    const projectId = await newProject(sdk, 'Paged');
    const created: string[] = [];
    for (let i = 0; i < 7; i += 1) created.push((await unwrap(sdk.POST('/v1/tasks', { body: { title: `Task ${i}`, projectId } }))).id);
    sent.length = 0;

    const listed: Task[] = [];
    for await (const task of sdk.list('/v1/tasks', { query: { projectId, limit: 3 } })) listed.push(task);
    expect(listed.map((t) => t.id).sort()).toEqual([...created].sort());
    expect(listed.map((t) => t.id)).toEqual([...created].reverse()); // newest first
    expect(sent.map((r) => [new URL(r.url).searchParams.has('cursor'), new URL(r.url).searchParams.get('offset')])).toEqual([
      [false, null],
      [true, null],
      [true, null],
    ]);

    const pages = [];
    for await (const page of sdk.pages('/v1/tasks', { query: { projectId, limit: 3 } })) pages.push(page.pagination);
    expect(pages).toEqual([
      { total: 7, limit: 3, offset: 0, hasMore: true, nextCursor: expect.any(String) },
      { total: 7, limit: 3, offset: 3, hasMore: true, nextCursor: expect.any(String) },
      { total: 7, limit: 3, offset: 6, hasMore: false, nextCursor: null },
    ]);
  });

  it('lists a nested collection, its path parameters typed and required', async () => {
    const { sdk } = sdkFor(org.liveKey);
    const projectId = await newProject(sdk, 'Discussed');
    const task = await unwrap(sdk.POST('/v1/tasks', { body: { title: 'Discuss', projectId } }));
    for (const content of ['one', 'two', 'three']) {
      await unwrap(sdk.POST('/v1/tasks/{taskId}/comments', { params: { path: { taskId: task.id } }, body: { content } }));
    }
    const contents: string[] = [];
    for await (const comment of sdk.list('/v1/tasks/{taskId}/comments', { path: { taskId: task.id }, query: { limit: 2 } })) contents.push(comment.content);
    expect(contents).toEqual(['one', 'two', 'three']); // oldest first
  });

  it('throws WorktrackApiError from the iterator when a page is refused', async () => {
    const { sdk } = sdkFor(org.liveKey);
    const iterate = async () => {
      for await (const task of sdk.list('/v1/tasks', { query: { limit: 1000 } })) void task;
    };
    await expect(iterate()).rejects.toMatchObject({ name: 'WorktrackApiError', status: 400, code: 'invalid_request', param: 'limit' });
  });

  it('retries a creation after a 503 with the same Idempotency-Key, and the task is created once', async () => {
    const { sdk: setup } = sdkFor(org.liveKey);
    const projectId = await newProject(setup, 'Retried');
    // The first POST reaches the API and creates the task, but its answer is lost: the client sees a 503.
    let lost = false;
    const replayed: (string | null)[] = [];
    const waits: number[] = [];
    const { sdk, sent } = sdkFor(org.liveKey, {
      sleep: async (ms) => void waits.push(ms),
      fetch: async (request) => {
        const response = await checkedFetch(request);
        if (request.method === 'POST' && !lost) {
          lost = true;
          await response.arrayBuffer();
          const body = { error: { code: 'unavailable', message: 'Lost on the way', param: null, type: 'api_error' } };
          return new Response(JSON.stringify(body), { status: 503, headers: { 'Content-Type': 'application/json' } });
        }
        replayed.push(response.headers.get('idempotent-replayed'));
        return response;
      },
    });

    const task = await unwrap(sdk.POST('/v1/tasks', { body: { title: 'Exactly once', projectId } }));
    expect(sent).toHaveLength(2);
    const [first, second] = sent.map((r) => r.headers.get('idempotency-key'));
    expect(first).toMatch(UUID_V4);
    expect(second).toBe(first);
    expect(replayed).toEqual(['true']); // the API answered the retry from its idempotency record
    expect(waits).toHaveLength(1); // no Retry-After on this 503: one backoff step
    expect(waits[0]).toBeGreaterThanOrEqual(250);
    expect(waits[0]).toBeLessThanOrEqual(500);

    const tasks = await unwrap(setup.GET('/v1/tasks', { params: { query: { projectId } } }));
    expect(tasks.data.map((t) => t.id)).toEqual([task.id]);
    expect(tasks.pagination.total).toBe(1);
  });

  it('honours Retry-After on a 429: waits the seconds asked, then succeeds', async () => {
    let limited = false;
    const waits: number[] = [];
    const { sdk, sent } = sdkFor(org.liveKey, {
      sleep: async (ms) => void waits.push(ms),
      fetch: async (request) => {
        if (!limited) {
          limited = true;
          const body = { error: { code: 'rate_limited', message: 'Slow down', param: null, type: 'rate_limit_error' } };
          return new Response(JSON.stringify(body), { status: 429, headers: { 'Content-Type': 'application/json', 'Retry-After': '1' } });
        }
        return checkedFetch(request);
      },
    });
    const project = await unwrap(sdk.POST('/v1/projects', { body: { name: 'After the wait' } }));
    expect(project.name).toBe('After the wait');
    expect(waits).toEqual([1_000]);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers.get('idempotency-key')).toBe(sent[0]!.headers.get('idempotency-key'));
  });

  it('hands back the real quota 429 at once: its Retry-After (until midnight UTC) is beyond the bound', async () => {
    const limitedOrg = await createOrg(h.db, { plan: 'enterprise', dailyQuota: 1 });
    const waits: number[] = [];
    const { sdk, sent } = sdkFor(limitedOrg.liveKey, { maxRetryDelayMs: 999, sleep: async (ms) => void waits.push(ms) });
    expect((await sdk.GET('/v1/projects')).response.status).toBe(200);
    const { error, response } = await sdk.GET('/v1/projects');
    expect(response.status).toBe(429);
    expect(error?.error.code).toBe('rate_limited');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(waits).toEqual([]);
    expect(sent).toHaveLength(2);
  });
});

describe('bulkTasks', () => {
  it('applies typed operations and answers their results in item order, or throws naming every failing item', async () => {
    const { sdk } = sdkFor(org.liveKey);
    const project = await unwrap(sdk.POST('/v1/projects', { body: { name: 'Bulk from the SDK' } }));
    const [created, second] = await bulkTasks(sdk, [
      { op: 'create', data: { title: 'One', projectId: project.id } },
      { op: 'create', data: { title: 'Two', projectId: project.id, priority: 'high' } },
    ]);
    expect([created?.task?.title, second?.task?.priority]).toEqual(['One', 'high']);

    const results = await bulkTasks(sdk, [
      { op: 'update', id: created!.id, data: { status: 'done' } },
      { op: 'delete', id: second!.id },
    ]);
    expect(results.map((r) => [r.op, r.id, r.task?.status ?? null])).toEqual([
      ['update', created!.id, 'done'],
      ['delete', second!.id, null],
    ]);

    const failed = await bulkTasks(sdk, [
      { op: 'delete', id: created!.id },
      { op: 'update', id: second!.id, data: { title: 'Gone' } },
    ]).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(WorktrackApiError);
    expect((failed as WorktrackApiError).errors).toEqual([{ index: 1, code: 'not_found', param: 'id', message: 'No such task' }]);
    expect((await unwrap(sdk.GET('/v1/tasks/{taskId}', { params: { path: { taskId: created!.id } } }))).status).toBe('done');
  });
});
