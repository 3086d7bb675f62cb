// The event stream and the feed (docs/decisions.md#history-actors-and-live-events), against the
// running API process:
//   - stream: 1,000 open streams of one organization (200 keys, 5 streams each) against one, in the
//     same run: memory per stream from the API's RSS before and after opening them (after 1,000
//     idle TCP connections, the floor of any open connection, opened first and measured the same
//     way), and, for tasks created through the
//     API at 10 a second while they are open, the time from sending the POST (so an upper bound on
//     its commit) to each stream's message;
//   - feed: pages of 100 events (GET /v1/events/feed, following `next`) against the offset-paginated
//     list of the same events (GET /v1/events?limit=100&offset=), 10 concurrent readers each.
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { outboxEvents, post, type BenchOrganization, type NoisyNeighbourBench } from './noisy-neighbour';
import { percentile, paced } from './receiver';
import { printTable, type Measured } from './table';

export interface EventStreamBench extends Pick<NoisyNeighbourBench, 'base' | 'seconds' | 'pg' | 'organization' | 'cpu'> {
  apiPid: number;
}

const STREAMS = 1_000;
const STREAMS_PER_KEY = 5;
const EVENTS_PER_SECOND = 10;
const FEED_EVENTS = 20_000;
const FEED_PAGE = 100;
const FEED_READERS = 10;

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const settle = () => new Promise((resolve) => setTimeout(resolve, 2000));

interface OpenStreams {
  /** Arrival times of each task's message, one per stream. */
  arrivals: Map<string, number[]>;
  close(): void;
}

/** Opens `keys.length * perKey` streams and notes when each task.created message arrives. */
async function openStreams(base: string, keys: string[], perKey: number): Promise<OpenStreams> {
  const arrivals = new Map<string, number[]>();
  const requests: http.ClientRequest[] = [];
  await Promise.all(
    keys.flatMap((key) =>
      Array.from(
        { length: perKey },
        () =>
          new Promise<void>((resolve, reject) => {
            const req = http.get(`${base}/v1/events/stream?types=task.created`, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
              if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
              let buffer = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => {
                const now = Date.now();
                buffer += chunk;
                let end: number;
                while ((end = buffer.indexOf('\n\n')) >= 0) {
                  const data = buffer
                    .slice(0, end)
                    .split('\n')
                    .find((line) => line.startsWith('data: '));
                  buffer = buffer.slice(end + 2);
                  if (!data) continue;
                  const id = (JSON.parse(data.slice(6)) as { data: { id: string } }).data.id;
                  const times = arrivals.get(id) ?? [];
                  times.push(now);
                  arrivals.set(id, times);
                }
              });
              res.on('error', () => undefined);
              resolve();
            });
            req.on('error', () => undefined);
            requests.push(req);
          }),
      ),
    ),
  );
  return {
    arrivals,
    close: () => {
      for (const req of requests) req.destroy();
    },
  };
}

/** Tasks created at EVENTS_PER_SECOND while the streams are open: their delivery to every stream. */
async function measureStreams(bench: EventStreamBench, org: BenchOrganization, projectId: string, streams: OpenStreams, count: number, label: string) {
  const sent = new Map<string, number>();
  const window = await bench.cpu([bench.apiPid]);
  const started = Date.now();
  await paced(EVENTS_PER_SECOND, bench.seconds, async () => {
    const at = Date.now();
    const task = await post(bench.base, org, '/v1/tasks', { projectId, title: 'Streamed' });
    sent.set(task.id, at);
  });
  // Every stream has every task's message, or 5 s have passed.
  const deadline = Date.now() + 5000;
  while ([...sent.keys()].some((id) => (streams.arrivals.get(id)?.length ?? 0) < count) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const cpu = await window.stop();
  const latencies = [...sent].flatMap(([id, at]) => (streams.arrivals.get(id) ?? []).map((arrival) => arrival - at));
  const missing = sent.size * count - latencies.length;
  const measured: Measured = {
    label,
    count: sent.size,
    seconds: (Date.now() - started) / 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpu,
  };
  return { measured, p95: percentile(latencies, 95), missing };
}

async function idleConnections(base: string, count: number): Promise<() => void> {
  const url = new URL(base);
  const sockets = await Promise.all(
    Array.from({ length: count }, async () => {
      const socket = net.connect(Number(url.port), url.hostname);
      await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      return socket;
    }),
  );
  return () => {
    for (const socket of sockets) socket.destroy();
  };
}

async function benchStreams(bench: EventStreamBench): Promise<void> {
  const org = await bench.organization('Streams');
  const project = await post(bench.base, org, '/v1/projects', { name: 'Streams' });
  const keys: string[] = [];
  while (keys.length < STREAMS / STREAMS_PER_KEY) {
    const created = await post(bench.base, org, '/v1/api-keys', { name: `stream ${keys.length}`, permissions: ['events:read'] });
    keys.push((created as unknown as { key: string }).key);
  }

  // Memory first, each kind opened on top of the other (nothing freed between, so no freed heap is reused).
  await settle();
  const before = rssKb(bench.apiPid);
  const closeIdle = await idleConnections(bench.base, STREAMS);
  await settle();
  const withIdle = rssKb(bench.apiPid);
  const many = await openStreams(bench.base, keys, STREAMS_PER_KEY);
  await settle();
  const withStreams = rssKb(bench.apiPid);
  closeIdle();
  const [perConnection, perStream] = [(withIdle - before) / STREAMS, (withStreams - withIdle) / STREAMS];
  const fanned = await measureStreams(bench, org, project.id, many, STREAMS, `${STREAMS.toLocaleString('en-US')} streams`);
  many.close();

  const one = await openStreams(bench.base, keys.slice(0, 1), 1);
  const alone = await measureStreams(bench, org, project.id, one, 1, '1 stream');
  one.close();

  printTable(
    'Event stream: 1,000 open streams on one API process, against one',
    'event',
    fanned.measured,
    alone.measured,
    [
      `Commit-to-client p95 (from sending the POST, so an upper bound): ${Math.round(fanned.p95)} ms with ${STREAMS} streams, ${Math.round(alone.p95)} ms with one; messages missing after 5 s: ${fanned.missing} and ${alone.missing}. CPU is per event written (the POST, and its message to every stream).`,
      `API RSS per open stream: ${perStream.toFixed(1)} KiB; per idle TCP connection, in the same run: ${perConnection.toFixed(1)} KiB (${(perStream / perConnection).toFixed(1)}x).`,
    ],
    `${STREAMS} / 1 stream`,
  );
}

/** FEED_READERS concurrent readers, each walking the pages from the first (by `next` or by offset) and starting over at the end, for `seconds`. */
async function readPages(
  bench: EventStreamBench,
  org: BenchOrganization,
  label: string,
  page: (index: number, previous: string | null) => string,
  next: (body: { next?: string | null }) => string | null,
) {
  const window = await bench.cpu([bench.apiPid]);
  const started = Date.now();
  const deadline = started + bench.seconds * 1000;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: FEED_READERS }, async () => {
      let previous: string | null = null;
      for (let index = 0; Date.now() < deadline; index++) {
        if (index * FEED_PAGE >= FEED_EVENTS) [index, previous] = [0, null];
        const at = Date.now();
        const res = await request(`${bench.base}${page(index, previous)}`, { headers: org.headers });
        if (res.statusCode !== 200) throw new Error(`${label}: ${res.statusCode} ${await res.body.text()}`);
        previous = next((await res.body.json()) as { next?: string | null });
        latencies.push(Date.now() - at);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  return {
    label,
    count: latencies.length,
    seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpu: await window.stop(),
  } satisfies Measured;
}

async function benchFeed(bench: EventStreamBench): Promise<void> {
  const org = await bench.organization('Feed');
  const project = await post(bench.base, org, '/v1/projects', { name: 'Feed' });
  for (let i = 0; i < FEED_EVENTS; i += 5000) await outboxEvents(bench.pg, org, project.id, 5000);
  await bench.pg.query('VACUUM ANALYZE "OutboxEvent"');
  const feed = await readPages(
    bench,
    org,
    'GET /v1/events/feed?after=',
    (_, previous) => `/v1/events/feed?limit=${FEED_PAGE}${previous ? `&after=${encodeURIComponent(previous)}` : ''}`,
    (body) => body.next ?? null,
  );
  const list = await readPages(
    bench,
    org,
    'GET /v1/events?offset=',
    (index) => `/v1/events?limit=${FEED_PAGE}&offset=${index * FEED_PAGE}`,
    () => null,
  );
  printTable(
    `Event feed: pages of ${FEED_PAGE} of ${FEED_EVENTS.toLocaleString('en-US')} events, ${FEED_READERS} readers`,
    'page',
    feed,
    list,
    [],
    'feed / offset list',
  );
}

export async function benchEventStream(bench: EventStreamBench, paths: { stream: boolean; feed: boolean }): Promise<void> {
  if (paths.stream) await benchStreams(bench);
  if (paths.feed) await benchFeed(bench);
}
