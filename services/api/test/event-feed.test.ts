import { newId, type Mode } from '@worktrack/db';
import { as, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { sealFeedCursor } from '../src/modules/events/feed-cursor';

const DAY_MS = 24 * 3600 * 1000;

let h: Harness;

beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

interface FeedPage {
  data: { id: string; type: string }[];
  next: string | null;
}

async function readPage(org: TestOrg, after: string | null, limit = 100): Promise<FeedPage> {
  const res = await as(h.app, org.liveKey).get(`/v1/events/feed?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`);
  expect(res.status).toBe(200);
  return res.body as FeedPage;
}

/** An event's outbox row, to write in a transaction the test holds open. */
const insertEvent = (org: TestOrg) => ({
  text: `INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "dispatchedAt") VALUES ($1, $2, 'live', 'task.created', '{}', now())`,
  values: [newId('event'), org.organization.id],
});

describe('GET /v1/events/feed', () => {
  it('orders by the transaction id as a number, not as text (9 before 10), so a page never passes an event it left out', async () => {
    const org = await createOrg(h.db);
    const [nine, ten] = [newId('event'), newId('event')];
    for (const [id, txid] of [
      [ten, 10],
      [nine, 9],
    ] as const) {
      await h.pool.query(`INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, txid) VALUES ($1, $2, 'live', 'task.created', '{}', $3)`, [
        id,
        org.organization.id,
        txid,
      ]);
    }
    const first = await readPage(org, null, 1);
    const second = await readPage(org, first.next, 1);
    expect([...first.data, ...second.data].map((e) => e.id)).toEqual([nine, ten]);
  });

  it('hands out an event committed late in its place, never behind a cursor that passed it', async () => {
    const org = await createOrg(h.db);
    const start = await readPage(org, null);
    expect(start).toEqual({ data: [], next: null });

    const early = await h.pool.connect();
    const late = await h.pool.connect();
    try {
      await early.query('BEGIN');
      await early.query(insertEvent(org));
      await late.query('BEGIN');
      await late.query(insertEvent(org));
      await late.query('COMMIT');
      // The later transaction committed, but an older one is still open: nothing is handed out yet.
      expect((await readPage(org, null)).data).toEqual([]);
      await early.query('COMMIT');
    } finally {
      early.release();
      late.release();
    }
    // Once it commits both are handed out, the earlier first (as soon as no older transaction of the server still runs).
    const page = await waitFor(async () => {
      const read = await readPage(org, null);
      return read.data.length > 0 ? read : undefined;
    });
    expect(page.data).toHaveLength(2);
    expect((await readPage(org, page.next)).data).toEqual([]);
  });

  it('gives 8 concurrent writers’ events to a follower exactly once each', async () => {
    const org = await createOrg(h.db);
    const scope = { organizationId: org.organization.id, mode: 'live' as Mode };
    const WRITERS = 8;
    const ROUNDS = 15;
    const seen: string[] = [];
    let cursor: string | null = null;
    let expected = Infinity;

    const follower = (async () => {
      const deadline = Date.now() + 30_000;
      while (seen.length < expected && Date.now() < deadline) {
        const page = await readPage(org, cursor, 50);
        seen.push(...page.data.map((event) => event.id));
        cursor = page.next;
      }
    })();
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (let round = 0; round < ROUNDS; round++) {
          await h.deps.data(scope).transaction(async (tx) => {
            await tx.events.record([{ type: 'task.created', data: { writer, round }, projectId: null }]);
            // Transactions of uneven length, so they commit in another order than they began.
            await tx.tasks.find(`tsk_${writer}_${round}`);
            if (round % 3 === writer % 3) await tx.events.record([{ type: 'task.updated', data: { writer, round }, projectId: null }]);
          });
        }
      }),
    );
    const written = (await h.db.outboxEvent.findMany({ where: scope, select: { id: true } })).map((event) => event.id);
    expected = written.length;
    await follower;

    expect(written.length).toBeGreaterThanOrEqual(WRITERS * ROUNDS);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...written].sort());
  });

  it('walks from the oldest event kept when no cursor is given, a page at a time', async () => {
    const org = await createOrg(h.db);
    await h.pool.query(insertEvent(org));
    await h.db.outboxEvent.create({
      data: {
        id: newId('event'),
        organizationId: org.organization.id,
        mode: 'live',
        type: 'task.created',
        data: {},
        createdAt: new Date(Date.now() - 31 * DAY_MS),
      },
    });
    for (let i = 0; i < 4; i++) await as(h.app, org.liveKey).post('/v1/projects', { name: `P${i}` });
    const ids: string[] = [];
    let after: string | null = null;
    await waitFor(async () => {
      const page: FeedPage = await readPage(org, after, 2);
      ids.push(...page.data.map((event) => event.id));
      after = page.next;
      return ids.length >= 5 ? true : undefined;
    });
    expect(ids).toHaveLength(5);
    expect((await readPage(org, after)).data).toEqual([]);
  });

  it('refuses a malformed cursor and another tenant’s (400), an expired one (410 cursor_expired), and a key without events:read', async () => {
    const [org, other] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
    await as(h.app, other.liveKey).post('/v1/projects', { name: 'Theirs' });
    const theirs = await waitFor(async () => (await readPage(other, null)).next ?? undefined);
    expectError(await as(h.app, org.liveKey).get(`/v1/events/feed?after=${encodeURIComponent(theirs)}`), 400, 'invalid_request', 'after');
    expectError(await as(h.app, org.liveKey).get('/v1/events/feed?after=not-a-cursor'), 400, 'invalid_request', 'after');
    const scope = { organizationId: org.organization.id, mode: 'live' as Mode };
    const expired = sealFeedCursor(h.deps.config.cursorSecret, scope, { txid: '1', id: newId('event'), createdAt: new Date(Date.now() - 31 * DAY_MS) });
    expectError(await as(h.app, org.liveKey).get(`/v1/events/feed?after=${encodeURIComponent(expired)}`), 410, 'cursor_expired', 'after');
    expectError(await as(h.app, await keyWith(h.db, org, ['tasks:read'])).get('/v1/events/feed'), 403, 'forbidden');
  });
});
