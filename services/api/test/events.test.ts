import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { newId } from '@worktrack/db';
import { EVENT_TYPES } from '@worktrack/events';
import { addMember, as, client, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess, type SecuredRoute } from '@test-support/access-checks';

const DAY_MS = 24 * 3600 * 1000;

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
});
afterAll(() => h.close());

/** An outbox row as the API writes it, with its id in creation order. */
async function insertEvent(owner: TestOrg, options: { type?: string; createdAt?: Date; mode?: 'live' | 'test'; data?: object } = {}) {
  return h.db.outboxEvent.create({
    data: {
      id: newId('event'),
      organizationId: owner.organization.id,
      mode: options.mode ?? 'live',
      type: options.type ?? 'task.created',
      data: options.data ?? { id: 'tsk_x', title: 'X' },
      createdAt: options.createdAt ?? new Date(),
      dispatchedAt: new Date(),
    },
  });
}

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

describe('access', () => {
  let eventId: string;
  beforeAll(async () => {
    eventId = (await insertEvent(org)).id;
  });
  const routes = (): SecuredRoute[] => [
    { method: 'get', path: '/v1/events', permission: 'events:read' },
    { method: 'get', path: `/v1/events/${eventId}`, permission: 'events:read' },
  ];
  describe.each([
    ['GET /events', 0],
    ['GET /events/{id}', 1],
  ] as const)('%s', (_name, i) => {
    itEnforcesAccess(
      () => ({ harness: h, org, otherOrg }),
      () => routes()[i]!,
      { namesResource: i === 1 },
    );
  });

  it('lets every role read events, and a key holding events:read alone read no subscription', async () => {
    for (const role of ['member', 'guest'] as const) {
      const { key } = await addMember(h.db, org, { role });
      expect(ids(await as(h.app, key).get('/v1/events').expect(200))).toContain(eventId);
      expectError(await as(h.app, key).get('/v1/webhooks'), 403, 'forbidden');
    }
    const eventsOnly = await keyWith(h.db, org, ['events:read']);
    expect((await as(h.app, eventsOnly).get(`/v1/events/${eventId}`).expect(200)).body.id).toBe(eventId);
    expectError(await as(h.app, eventsOnly).get('/v1/webhooks'), 403, 'forbidden');
  });

  it('keeps a key made with webhooks:read alone reading events', async () => {
    const webhooksOnly = await keyWith(h.db, org, ['webhooks:read']);
    expect(ids(await as(h.app, webhooksOnly).get('/v1/events').expect(200))).toContain(eventId);
    expectError(await as(h.app, await keyWith(h.db, org, ['tasks:read'])).get('/v1/events'), 403, 'forbidden');
  });
});

describe('GET /v1/events', () => {
  let owner: TestOrg;
  /** Oldest first: task.created, project.created, task.updated, task.created (test mode), one 31 days old. */
  let live: string[];

  beforeAll(async () => {
    owner = await createOrg(h.db);
    await insertEvent(owner, { createdAt: new Date(Date.now() - 31 * DAY_MS) });
    // A second apart, so that createdSince can fall between two of them.
    const types = ['task.created', 'project.created', 'task.updated'];
    live = [];
    for (const [i, type] of types.entries()) {
      live.push((await insertEvent(owner, { type, createdAt: new Date(Date.now() - (types.length - i) * 1000) })).id);
    }
    await insertEvent(owner, { mode: 'test' });
  });

  it('lists the events of the last 30 days newest first, as {id, type, createdAt, actor, data}', async () => {
    const res = await as(h.app, owner.liveKey).get('/v1/events');
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([...live].reverse());
    expect(res.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, hasMore: false, nextCursor: null });
    expect(res.body.data[2]).toEqual({
      id: live[0],
      type: 'task.created',
      createdAt: expect.any(String),
      actor: { type: 'system' },
      data: { id: 'tsk_x', title: 'X' },
    });
  });

  it('filters by type and createdSince, and pages', async () => {
    expect(ids(await as(h.app, owner.liveKey).get('/v1/events?type=task.created'))).toEqual([live[0]]);
    const second = await h.db.outboxEvent.findUniqueOrThrow({ where: { id: live[1]! } });
    expect(ids(await as(h.app, owner.liveKey).get(`/v1/events?createdSince=${second.createdAt.toISOString()}`))).toEqual([live[2], live[1]]);
    const page = await as(h.app, owner.liveKey).get('/v1/events?limit=1&offset=1');
    expect(ids(page)).toEqual([live[1]]);
    expect(page.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true, nextCursor: expect.any(String) });
  });

  it('keeps to 30 days even when createdSince reaches further back', async () => {
    const res = await as(h.app, owner.liveKey).get(`/v1/events?createdSince=${new Date(Date.now() - 40 * DAY_MS).toISOString()}`);
    expect(res.body.pagination.total).toBe(3);
  });

  it('shows a test key the test events only, and another organization nothing', async () => {
    const test = await as(h.app, owner.testKey).get('/v1/events');
    expect(test.body.pagination.total).toBe(1);
    expect(test.body.data[0].id).not.toBe(live[0]);
    expect(ids(await as(h.app, otherOrg.liveKey).get('/v1/events'))).not.toContain(live[0]);
  });

  it.each([
    ['type=task.exploded', 'type'],
    ['createdSince=yesterday', 'createdSince'],
    ['limit=101', 'limit'],
    ['since=2026-01-01T00:00:00Z', 'since'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, owner.liveKey).get(`/v1/events?${query}`), 400, 'invalid_request', param);
  });
});

describe('GET /v1/events/{eventId}', () => {
  it('returns the event', async () => {
    const event = await insertEvent(org, { type: 'comment.created', data: { id: 'cmt_1', content: 'hi' } });
    const res = await as(h.app, org.liveKey).get(`/v1/events/${event.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: event.id,
      type: 'comment.created',
      createdAt: event.createdAt.toISOString(),
      actor: { type: 'system' },
      data: { id: 'cmt_1', content: 'hi' },
    });
  });

  it('answers 404 naming eventId for an unknown event and one older than 30 days', async () => {
    const old = await insertEvent(org, { createdAt: new Date(Date.now() - 31 * DAY_MS) });
    expectError(await as(h.app, org.liveKey).get('/v1/events/evt_missing'), 404, 'not_found', 'eventId');
    expectError(await as(h.app, org.liveKey).get(`/v1/events/${old.id}`), 404, 'not_found', 'eventId');
  });

  it('returns what the API itself recorded for a change', async () => {
    const project = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Evented' });
    const listed = await as(h.app, org.liveKey).get('/v1/events?type=project.created');
    expect(listed.body.data[0]).toMatchObject({ type: 'project.created', data: project.body });
  });
});

describe('GET /v1/event-types', () => {
  it('needs no key, and gives each of the 15 types its meaning, the JSON Schema of its data and an example body that the schema accepts', async () => {
    const res = await client(h.app).get('/v1/event-types').expect(200);
    const catalog = res.body.data as { type: string; description: string; schema: object; example: { event: string; data: unknown } }[];
    expect(catalog.map((entry) => entry.type)).toEqual([...EVENT_TYPES]);
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    for (const entry of catalog) {
      expect(entry.description).not.toBe('');
      expect(entry.example.event).toBe(entry.type);
      const validate = ajv.compile(entry.schema);
      expect({ type: entry.type, valid: validate(entry.example.data), errors: validate.errors ?? null }).toEqual({
        type: entry.type,
        valid: true,
        errors: null,
      });
    }
  });
});
