import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

/*
 * A subscription's delivery caps (docs/decisions.md#fair-delivery): maxConcurrency and rateLimit, set on create and
 * PATCH, and the pause a receiver's Retry-After sets, shown read-only. No deliveries are made here:
 * what the worker does with these fields is its own tests' business.
 */

const HOOK_URL = 'https://93.184.215.14/hooks';
const HOUR_MS = 3600 * 1000;

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '' });
  org = await createOrg(h.db, { plan: 'enterprise' });
});
afterAll(() => h.close());

const api = () => as(h.app, org.liveKey);

async function subscribe(body: object = {}): Promise<string> {
  const res = await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'], ...body });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const stored = (id: string) => h.db.webhook.findUniqueOrThrow({ where: { id } });

/** Every way the two fields can be out of range or of the wrong type. */
const OUT_OF_BOUNDS: [object, string][] = [
  [{ maxConcurrency: 0 }, 'maxConcurrency'],
  [{ maxConcurrency: 101 }, 'maxConcurrency'],
  [{ maxConcurrency: -1 }, 'maxConcurrency'],
  [{ maxConcurrency: 2.5 }, 'maxConcurrency'],
  [{ maxConcurrency: '5' }, 'maxConcurrency'],
  [{ maxConcurrency: null }, 'maxConcurrency'],
  [{ maxConcurrency: true }, 'maxConcurrency'],
  [{ rateLimit: 0 }, 'rateLimit'],
  [{ rateLimit: 10_001 }, 'rateLimit'],
  [{ rateLimit: 1.5 }, 'rateLimit'],
  [{ rateLimit: '100' }, 'rateLimit'],
  [{ rateLimit: [] }, 'rateLimit'],
];

describe('POST /v1/webhooks', () => {
  it('defaults to 10 at once, no rate limit and no pause, in the answer, GET, the list and the row', async () => {
    const res = await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ maxConcurrency: 10, rateLimit: null, pausedUntil: null });
    const id = res.body.id as string;

    expect((await api().get(`/v1/webhooks/${id}`)).body).toMatchObject({ maxConcurrency: 10, rateLimit: null, pausedUntil: null });
    const listed = (await api().get('/v1/webhooks?limit=100')).body.data.find((w: { id: string }) => w.id === id);
    expect(listed).toMatchObject({ maxConcurrency: 10, rateLimit: null, pausedUntil: null });
    expect(await stored(id)).toMatchObject({ maxConcurrency: 10, rateLimit: null, pausedUntil: null });
  });

  it('takes both, and shows them wherever the record is returned', async () => {
    const res = await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'], maxConcurrency: 3, rateLimit: 50 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ maxConcurrency: 3, rateLimit: 50, pausedUntil: null });
    expect((await api().get(`/v1/webhooks/${res.body.id}`)).body).toMatchObject({ maxConcurrency: 3, rateLimit: 50 });
    expect(await stored(res.body.id)).toMatchObject({ maxConcurrency: 3, rateLimit: 50 });
  });

  it.each([
    [1, 1],
    [100, 10_000],
  ])('accepts the bounds: maxConcurrency %d, rateLimit %d', async (maxConcurrency, rateLimit) => {
    const res = await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'], maxConcurrency, rateLimit });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ maxConcurrency, rateLimit });
  });

  it('takes an explicit null rate limit as none', async () => {
    const res = await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'], rateLimit: null });
    expect(res.status).toBe(201);
    expect(res.body.rateLimit).toBeNull();
  });

  it.each(OUT_OF_BOUNDS)('refuses %j with 400 naming %s, and creates nothing', async (fields, param) => {
    const before = await h.db.webhook.count({ where: { organizationId: org.organization.id } });
    expectError(await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'], ...fields }), 400, 'invalid_request', param);
    expect(await h.db.webhook.count({ where: { organizationId: org.organization.id } })).toBe(before);
  });

  it('refuses pausedUntil: the worker sets it, never a client', async () => {
    const until = new Date(Date.now() + HOUR_MS).toISOString();
    expectError(await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'], pausedUntil: until }), 400, 'invalid_request', 'pausedUntil');
  });
});

describe('PATCH /v1/webhooks/{id}', () => {
  let id: string;
  beforeEach(async () => {
    id = await subscribe();
  });

  it('changes both and nothing else; GET shows the change', async () => {
    const before = (await api().get(`/v1/webhooks/${id}`)).body;
    const res = await api().patch(`/v1/webhooks/${id}`, { maxConcurrency: 25, rateLimit: 200 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, maxConcurrency: 25, rateLimit: 200, updatedAt: expect.any(String) });
    expect((await api().get(`/v1/webhooks/${id}`)).body).toEqual(res.body);
  });

  it('changes one without touching the other', async () => {
    await api().patch(`/v1/webhooks/${id}`, { maxConcurrency: 5, rateLimit: 7 }).expect(200);
    expect((await api().patch(`/v1/webhooks/${id}`, { maxConcurrency: 6 })).body).toMatchObject({ maxConcurrency: 6, rateLimit: 7 });
    expect((await api().patch(`/v1/webhooks/${id}`, { rateLimit: 8 })).body).toMatchObject({ maxConcurrency: 6, rateLimit: 8 });
    expect((await api().patch(`/v1/webhooks/${id}`, { description: 'other' })).body).toMatchObject({ maxConcurrency: 6, rateLimit: 8 });
  });

  it('removes the rate limit with null', async () => {
    await api().patch(`/v1/webhooks/${id}`, { rateLimit: 30 }).expect(200);
    const res = await api().patch(`/v1/webhooks/${id}`, { rateLimit: null });
    expect(res.status).toBe(200);
    expect(res.body.rateLimit).toBeNull();
    expect((await stored(id)).rateLimit).toBeNull();
  });

  it.each(OUT_OF_BOUNDS)('refuses %j with 400 naming %s, and changes nothing', async (fields, param) => {
    await api().patch(`/v1/webhooks/${id}`, { maxConcurrency: 4, rateLimit: 40 }).expect(200);
    expectError(await api().patch(`/v1/webhooks/${id}`, fields), 400, 'invalid_request', param);
    expect(await stored(id)).toMatchObject({ maxConcurrency: 4, rateLimit: 40 });
  });

  it('refuses pausedUntil, and leaves the pause as it was', async () => {
    const until = new Date(Date.now() + HOUR_MS);
    await h.db.webhook.update({ where: { id }, data: { pausedUntil: until } });
    expectError(await api().patch(`/v1/webhooks/${id}`, { pausedUntil: null }), 400, 'invalid_request', 'pausedUntil');
    expect((await stored(id)).pausedUntil).toEqual(until);
  });

  describe('the internal token bucket', () => {
    const bucket = async () => {
      const row = await stored(id);
      return { rateTokens: row.rateTokens, rateTokensAt: row.rateTokensAt };
    };
    const spent = { rateTokens: 2.5, rateTokensAt: new Date(Date.now() - 1_000) };
    beforeEach(async () => {
      await api().patch(`/v1/webhooks/${id}`, { rateLimit: 5 }).expect(200);
      // As the worker leaves it after taking tokens at 5 per second.
      await h.db.webhook.update({ where: { id }, data: spent });
    });

    it.each([[50], [null]])('is reset when rateLimit changes (to %j), so the new rate applies at once', async (rateLimit) => {
      await api().patch(`/v1/webhooks/${id}`, { rateLimit }).expect(200);
      expect(await bucket()).toEqual({ rateTokens: null, rateTokensAt: null });
    });

    it.each([[{ rateLimit: 5 }], [{ maxConcurrency: 50 }], [{ description: 'x' }]])('is kept by %j, which does not change the rate', async (body) => {
      await api().patch(`/v1/webhooks/${id}`, body).expect(200);
      expect(await bucket()).toEqual(spent);
    });

    it('is never shown', async () => {
      const record = (await api().get(`/v1/webhooks/${id}`)).body as Record<string, unknown>;
      expect(Object.keys(record).filter((key) => key.startsWith('rateTokens'))).toEqual([]);
    });
  });
});

describe('pausedUntil', () => {
  let id: string;
  beforeEach(async () => {
    id = await subscribe();
  });

  /** As the worker leaves it after a 429 or 503 with Retry-After. */
  const pause = (until: Date) => h.db.webhook.update({ where: { id }, data: { pausedUntil: until } });

  it('shows a pause in force in GET, the list and the answer to a PATCH', async () => {
    const until = new Date(Date.now() + HOUR_MS);
    await pause(until);
    expect((await api().get(`/v1/webhooks/${id}`)).body.pausedUntil).toBe(until.toISOString());
    const listed = (await api().get('/v1/webhooks?limit=100')).body.data.find((w: { id: string }) => w.id === id);
    expect(listed.pausedUntil).toBe(until.toISOString());
    // A PATCH that does not re-enable leaves the receiver's pause alone.
    expect((await api().patch(`/v1/webhooks/${id}`, { maxConcurrency: 2, rateLimit: 3 })).body.pausedUntil).toBe(until.toISOString());
    expect((await stored(id)).pausedUntil).toEqual(until);
  });

  it('shows null once the pause has passed, whether or not the worker cleared it', async () => {
    await pause(new Date(Date.now() - 1_000));
    expect((await api().get(`/v1/webhooks/${id}`)).body.pausedUntil).toBeNull();
  });

  it('is lifted when PATCH re-enables a disabled subscription', async () => {
    await api().patch(`/v1/webhooks/${id}`, { status: 'disabled' }).expect(200);
    await pause(new Date(Date.now() + HOUR_MS));
    expect((await api().get(`/v1/webhooks/${id}`)).body.pausedUntil).not.toBeNull();

    const res = await api().patch(`/v1/webhooks/${id}`, { status: 'active' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'active', pausedUntil: null });
    expect((await stored(id)).pausedUntil).toBeNull();
  });

  it('is kept when PATCH disables the subscription', async () => {
    const until = new Date(Date.now() + HOUR_MS);
    await pause(until);
    await api().patch(`/v1/webhooks/${id}`, { status: 'disabled' }).expect(200);
    expect((await stored(id)).pausedUntil).toEqual(until);
  });
});
