import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

/*
 * A subscription's `ordering` (docs/decisions.md#ordered-delivery), set on create and PATCH and shown
 * wherever the record is. What the worker does with it is services/worker/test/ordered-delivery.test.ts'.
 */

const HOOK_URL = 'https://93.184.215.14/hooks';

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '' });
  org = await createOrg(h.db, { plan: 'enterprise' });
});
afterAll(() => h.close());

const api = () => as(h.app, org.liveKey);

describe('ordering', () => {
  it('defaults to none, takes resource on create and PATCH, and shows it in the answer, GET, the list and the row', async () => {
    const plain = await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'] });
    expect(plain.body.ordering).toBe('none');

    const res = await api().post('/v1/webhooks', { url: HOOK_URL, events: ['task.updated'], ordering: 'resource' });
    expect(res.status).toBe(201);
    expect(res.body.ordering).toBe('resource');
    const id = res.body.id as string;
    expect((await api().get(`/v1/webhooks/${id}`)).body.ordering).toBe('resource');
    expect((await api().get('/v1/webhooks?limit=100')).body.data.find((w: { id: string }) => w.id === id).ordering).toBe('resource');

    const patched = await api().patch(`/v1/webhooks/${id}`, { ordering: 'none' });
    expect(patched.status).toBe(200);
    expect(patched.body.ordering).toBe('none');
    expect((await h.db.webhook.findUniqueOrThrow({ where: { id } })).ordering).toBe('none');
    // A PATCH without it leaves it be.
    await api().patch(`/v1/webhooks/${id}`, { ordering: 'resource' }).expect(200);
    expect((await api().patch(`/v1/webhooks/${id}`, { description: 'mirror' })).body.ordering).toBe('resource');
  });

  it.each([['fifo'], [null], [true], ['RESOURCE']])('refuses %j with 400 naming ordering', async (ordering) => {
    expectError(await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'], ordering }), 400, 'invalid_request', 'ordering');
    const id = (await api().post('/v1/webhooks', { url: HOOK_URL, events: ['*'] })).body.id as string;
    expectError(await api().patch(`/v1/webhooks/${id}`, { ordering }), 400, 'invalid_request', 'ordering');
  });
});
