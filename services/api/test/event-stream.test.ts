import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { addMember, as, createHarness, createOrg, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { exitCode, freePort, runBundled, waitForHttp } from '@test-support/processes';
import { call } from '@test-support/shipped-services';
import { openStream, type OpenedStream } from '@test-support/sse';
import { waitFor } from '@test-support/wait-for';
import { createClient } from '../../../packages/sdk/src/index';
import { createApiServer } from '../src/server';
import { hashApiKey } from '../src/http/auth';
import { sealFeedCursor } from '../src/modules/events/feed-cursor';

/** Two replicas of the API: their own processes' state (tails, key caches), the same Postgres and Redis. */
let replicas: { h: Harness; server: Server; url: string }[];
let org: TestOrg;
/** An API process of its own (`services/api/src/main.ts`), started at once so that it boots while the other tests run. */
let otherProcess: { child: ReturnType<typeof runBundled>; url: string };
const opened: OpenedStream[] = [];

beforeAll(async () => {
  const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
  const port = await freePort();
  // The replicas and the process share their cursor secret, as CURSOR_SECRET says they must.
  const cursorSecret = randomUUID();
  otherProcess = {
    child: runBundled('api', [], { PORT: String(port), REDIS_PREFIX: prefix, CURSOR_SECRET: cursorSecret }),
    url: `http://127.0.0.1:${port}`,
  };
  replicas = await Promise.all(
    [0, 1].map(async () => {
      const h = createHarness({ REDIS_PREFIX: prefix, CURSOR_SECRET: cursorSecret });
      const server = createApiServer(h.app).listen(0, '127.0.0.1');
      await once(server, 'listening');
      return { h, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    }),
  );
  await Promise.all(replicas.map(({ h }) => h.deps.keyRevocations.listening));
  org = await createOrg(replicas[0]!.h.db);
});
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});
afterAll(async () => {
  otherProcess.child.kill('SIGKILL');
  await exitCode(otherProcess.child);
  for (const { h, server } of replicas) {
    h.deps.streams.closeAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.close();
  }
});

const [writer, reader] = [() => replicas[0]!, () => replicas[1]!];

async function stream(path = '/v1/events/stream', key = org.liveKey, headers: Record<string, string> = {}, replica = reader()) {
  const s = await openStream(`${replica.url}${path}`, key, headers);
  opened.push(s);
  return s;
}

const createProject = async (name: string) => {
  const res = await as(writer().h.app, org.liveKey).post('/v1/projects', { name });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

describe('GET /v1/events/stream', () => {
  it('disconnects a client that does not read once 1 MiB waits for it, rather than buffering every event', async () => {
    // An organization of its own, so that its big events reach no other test's streams or feeds.
    const slow = await createOrg(writer().h.db);
    const projectId = (await as(writer().h.app, slow.liveKey).post('/v1/projects', { name: 'Slow reader' })).body.id as string;
    const after = (await as(writer().h.app, slow.liveKey).get('/v1/events/feed')).body.next as string;
    const { server, url } = reader();
    // The API's end of this connection, to see it closed.
    const accepted = once(server, 'connection');
    const client = net.connect(Number(new URL(url).port), '127.0.0.1').pause();
    const [serverSide] = (await accepted) as [net.Socket];
    client.write(`GET /v1/events/stream?after=${encodeURIComponent(after)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${slow.liveKey}\r\n\r\n`);
    // Events of 50 KB written straight to the outbox, 5 MB a statement: soon far more than the kernel's socket buffers hold.
    const eventBytes = 50_000;
    let written = 0;
    await waitFor(
      async () => {
        if (serverSide.destroyed) return true;
        if (written >= 2000) throw new Error(`${written} events written and the slow reader still connected`);
        await writer().h.pool.query(
          `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "projectId", "createdAt")
           SELECT 'evt_slow' || md5(random()::text), $1, 'live', 'project.updated', jsonb_build_object('id', $2::text, 'description', repeat('x', $3)), $2, now()
           FROM generate_series(1, 100)`,
          [slow.organization.id, projectId, eventBytes],
        );
        written += 100;
        return undefined;
      },
      { timeoutMs: 20_000, intervalMs: 0 },
    );
    // What reaches the client is what the kernel held when the API let go: the stream ended before its events did.
    let received = 0;
    client.on('data', (chunk: Buffer) => (received += chunk.length));
    client.resume();
    await once(client, 'close');
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(written * eventBytes);
  });

  it('brings events committed through another replica, with the actor and a resumable id, within a second', async () => {
    const s = await stream();
    expect(s.status).toBe(200);
    const projectId = await createProject('Live');
    const committed = Date.now();
    const message = await waitFor(async () => s.messages.find((m) => (m.data.data as { id: string }).id === projectId));
    expect(message.receivedAt - committed).toBeLessThan(1000);
    expect(message.event).toBe('project.created');
    expect(message.data).toMatchObject({
      event: 'project.created',
      actor: { type: 'user', userId: org.user.id },
      organization: { id: org.organization.id },
      id: expect.stringMatching(/^evt_/),
    });
    // Its id is a feed cursor: the feed from it has nothing of this event again.
    const feed = await as(writer().h.app, org.liveKey).get(`/v1/events/feed?after=${encodeURIComponent(message.id)}`);
    expect(feed.body.data.map((e: { id: string }) => e.id)).not.toContain(message.data.id);
  });

  it('resumes with Last-Event-ID with no gap and no duplicate', async () => {
    const first = await stream();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await createProject(`Before ${i}`));
    await waitFor(async () => (first.messages.length >= 3 ? true : undefined));
    const lastSeen = first.messages[1]!;
    first.close();
    for (let i = 0; i < 3; i++) ids.push(await createProject(`While away ${i}`));

    const resumed = await stream('/v1/events/stream', org.liveKey, { 'Last-Event-ID': lastSeen.id }, writer());
    const received = await waitFor(async () => {
      const all = [...first.messages.slice(0, 2), ...resumed.messages].map((m) => (m.data.data as { id: string }).id);
      return all.length >= ids.length ? all : undefined;
    });
    expect(received).toEqual(ids);
  });

  it('sends only the types and projects asked for', async () => {
    const projectId = await createProject('Filtered');
    const other = await createProject('Other');
    const s = await stream(`/v1/events/stream?types=task.created&projectIds=${projectId}`);
    for (const id of [other, projectId]) expect((await as(writer().h.app, org.liveKey).post('/v1/tasks', { projectId: id, title: 'T' })).status).toBe(201);
    await as(writer().h.app, org.liveKey).patch(`/v1/projects/${projectId}`, { name: 'Renamed' });
    const marker = await as(writer().h.app, org.liveKey).post('/v1/tasks', { projectId, title: 'Last' });
    await waitFor(async () => (s.messages.some((m) => (m.data.data as { id: string }).id === marker.body.id) ? true : undefined));
    expect(s.messages.map((m) => [m.event, (m.data.data as { projectId: string }).projectId])).toEqual([
      ['task.created', projectId],
      ['task.created', projectId],
    ]);
  });

  it('streams to every role and to a key holding webhooks:read, which includes events:read; refuses a key without either (403)', async () => {
    const { db } = writer().h;
    const holders = {
      guest: (await addMember(db, org, { role: 'guest' })).key,
      member: (await addMember(db, org, { role: 'member' })).key,
      'webhooks:read': await keyWith(db, org, ['webhooks:read']),
    };
    for (const [holder, key] of Object.entries(holders))
      expect({ holder, status: (await stream('/v1/events/stream', key)).status }).toEqual({ holder, status: 200 });
    const without = await stream('/v1/events/stream', await keyWith(db, org, ['tasks:read', 'webhooks:write']));
    expect(without).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
  });

  it('refuses a sixth stream of one key (429), a bad cursor (400) and an expired one (410)', async () => {
    const key = await keyWith(writer().h.db, org, ['events:read']);
    const five = await Promise.all([0, 1, 2, 3, 4].map((i) => stream('/v1/events/stream', key, {}, replicas[i % 2]!)));
    expect(five.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await stream('/v1/events/stream', key);
    expect(sixth.status).toBe(429);
    expect(sixth.body).toMatchObject({ error: { code: 'rate_limited' } });
    five[0]!.close();
    const again = await waitFor(async () => {
      const s = await stream('/v1/events/stream', key);
      return s.status === 200 ? s : undefined;
    });
    expect(again.status).toBe(200);
    const bad = await stream('/v1/events/stream', org.liveKey, { 'Last-Event-ID': 'nope' });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_request', param: 'Last-Event-ID' } } });
    const scope = { organizationId: org.organization.id, mode: 'live' as const };
    const expired = sealFeedCursor(writer().h.deps.config.cursorSecret, scope, {
      txid: '1',
      id: 'evt_old',
      createdAt: new Date(Date.now() - 31 * 24 * 3600 * 1000),
    });
    expect(await stream(`/v1/events/stream?after=${encodeURIComponent(expired)}`)).toMatchObject({
      status: 410,
      body: { error: { code: 'cursor_expired', param: 'after' } },
    });
  });

  it("closes a revoked key's streams on every replica within 5 s", async () => {
    const key = await keyWith(writer().h.db, org, ['events:read']);
    const [here, there] = [await stream('/v1/events/stream', key, {}, writer()), await stream('/v1/events/stream', key, {}, reader())];
    const keyId = (await writer().h.db.apiKey.findFirstOrThrow({ where: { hash: hashApiKey(key) } })).id;
    const revoked = Date.now();
    expect((await as(writer().h.app, org.liveKey).delete(`/v1/api-keys/${keyId}`)).status).toBe(204);
    await Promise.all([here.ended, there.ended]);
    expect(Date.now() - revoked).toBeLessThan(5000);
  });

  it('ends every stream at shutdown, and the client resumes elsewhere from its last id', async () => {
    const s = await stream('/v1/events/stream', org.liveKey, {}, reader());
    const first = await createProject('Before shutdown');
    await waitFor(async () => (s.messages.length > 0 ? true : undefined));
    reader().h.deps.streams.closeAll();
    await s.ended;
    const second = await createProject('After shutdown');
    const resumed = await stream('/v1/events/stream', org.liveKey, { 'Last-Event-ID': s.messages.at(-1)!.id }, writer());
    await waitFor(async () => (resumed.messages.length > 0 ? true : undefined));
    expect([...s.messages, ...resumed.messages].map((m) => (m.data.data as { id: string }).id)).toEqual([first, second]);
  });

  it("the SDK's stream reconnects by itself when a replica ends it, missing nothing; its feed walks the same events", async () => {
    const client = createClient({ baseUrl: reader().url, apiKey: org.liveKey });
    const start = (await as(writer().h.app, org.liveKey).get('/v1/events/feed?limit=1000')).body.next as string;
    const abort = new AbortController();
    const received: string[] = [];
    const reading = (async () => {
      for await (const event of client.events.stream({ after: start, types: ['project.created'], signal: abort.signal, reconnectDelayMs: 50 })) {
        received.push((event.data as { id: string }).id);
        expect(event.actor).toMatchObject({ type: 'user', userId: org.user.id });
        if (received.length === 4) abort.abort();
      }
    })();
    const ids = [await createProject('SDK 1'), await createProject('SDK 2')];
    await waitFor(async () => (received.length >= 2 ? true : undefined));
    reader().h.deps.streams.closeAll();
    ids.push(await createProject('SDK 3'), await createProject('SDK 4'));
    await reading;
    expect(received).toEqual(ids);

    const walked: string[] = [];
    for await (const page of client.events.feed({ after: start }))
      walked.push(...page.data.filter((e) => e.type === 'project.created').map((e) => (e.data as { id: string }).id));
    expect(walked).toEqual(ids);
  });

  it("the SDK's stream opened without a cursor resumes from where it started when it ends before its first event", async () => {
    const requests: Request[] = [];
    const received: string[] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const firstBytes: string[] = [];
    const client = createClient({
      baseUrl: reader().url,
      apiKey: org.liveKey,
      // The reconnection waits until an event has been committed while the client was away.
      fetch: async (request) => {
        requests.push(request);
        if (requests.length > 1) await released;
        const response = await fetch(request);
        if (requests.length > 1 || !response.body) return response;
        const watched = response.body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              firstBytes.push(new TextDecoder().decode(chunk));
              controller.enqueue(chunk);
            },
          }),
        );
        return new Response(watched, response);
      },
    });
    const abort = new AbortController();
    const reading = (async () => {
      for await (const event of client.events.stream({ types: ['project.created'], signal: abort.signal, reconnectDelayMs: 50 })) {
        received.push((event.data as { id: string }).id);
        if (received.length === 2) abort.abort();
      }
    })();
    await waitFor(async () => (firstBytes.join('').includes('\nid: ') ? true : undefined));
    reader().h.deps.streams.closeAll();
    await waitFor(async () => (requests.length === 2 ? true : undefined));
    const missed = await createProject('While away');
    release();
    const after = await createProject('Once back');
    await reading;
    expect(requests[1]!.headers.get('last-event-id')).toBeTruthy();
    expect(received).toEqual([missed, after]);
  });

  it('brings a task created through another API process', async () => {
    const [s] = await Promise.all([
      stream(),
      waitForHttp(`${otherProcess.url}/healthz`).catch((err: Error) => {
        throw new Error(`${err.message}; the API process printed:\n${otherProcess.child.output()}`);
      }),
    ]);
    const projectId = await createProject('Across processes');
    const created = await call(otherProcess.url, org.liveKey, 'POST', '/v1/tasks', { projectId, title: 'From the other process' });
    expect(created.status).toBe(201);
    const message = await waitFor(async () => s.messages.find((m) => (m.data.data as { id: string }).id === created.body!.id));
    expect(message.event).toBe('task.created');
  });

  it('sends a comment line at each heartbeat, so that proxies keep the stream open', async () => {
    const h = createHarness({}, { streams: { heartbeatMs: 100 } });
    const server = createApiServer(h.app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const s = await openStream(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/events/stream`, org.liveKey);
      opened.push(s);
      await waitFor(async () => (s.comments.length >= 2 ? true : undefined));
      expect(s.comments.slice(0, 2)).toEqual(['heartbeat', 'heartbeat']);
    } finally {
      h.deps.streams.closeAll();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await h.close();
    }
  });

  // Last: it stops the other API process.
  it('ends its streams when the API process gets SIGTERM, which then exits cleanly, and the client resumes on another replica', async () => {
    await waitForHttp(`${otherProcess.url}/healthz`);
    const s = await openStream(`${otherProcess.url}/v1/events/stream`, org.liveKey);
    opened.push(s);
    expect(s.status).toBe(200);
    const first = await createProject('Before SIGTERM');
    await waitFor(async () => (s.messages.length > 0 ? true : undefined));
    otherProcess.child.kill('SIGTERM');
    await s.ended;
    // Left open, the stream would hold the server's close until the shutdown deadline, which exits 1.
    expect(await exitCode(otherProcess.child)).toBe(0);
    const second = await createProject('After SIGTERM');
    const resumed = await stream('/v1/events/stream', org.liveKey, { 'Last-Event-ID': s.messages.at(-1)!.id });
    await waitFor(async () => (resumed.messages.length > 0 ? true : undefined));
    expect([...s.messages, ...resumed.messages].map((m) => (m.data.data as { id: string }).id)).toEqual([first, second]);
  });
});
