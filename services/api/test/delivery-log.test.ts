import { createHarnessWithWorker } from '@test-support/worker-harness';
import { as, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { signedIn } from '@test-support/dashboard-session';
import { startReceiver, type Receiver } from '@test-support/receiver';

/*
 * What happened to a webhook, end to end: the shipped worker in-process (retries 20 ms apart) posts
 * to a real receiver; the delivery log shows its answers, and recovery sends what was missed.
 */

let h: Harness;
let receiver: Receiver;
let org: TestOrg;

beforeAll(async () => {
  h = createHarnessWithWorker();
  receiver = await startReceiver();
  org = await createOrg(h.db);
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const healthy = { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"received":true}' };
// Retry-After 0: the header is recorded, and the test's short retry schedule is kept (a longer one would pause the subscription: fair-delivery.test.ts).
const broken = { status: 503, headers: { 'Content-Type': 'text/plain', 'Retry-After': '0' }, body: 'down for maintenance' };

async function subscribe(events = ['task.created']): Promise<string> {
  const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url: receiver.url, events, secret: 'secret_known_secret' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function settled(webhookId: string, deliveryId: string) {
  return waitFor(async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries/${deliveryId}`);
    return res.body.status === 'pending' ? undefined : res.body;
  });
}

async function newProject(): Promise<string> {
  return (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Delivered' })).body.id as string;
}

describe('the delivery log', () => {
  it('shows what the receiver answered: status, the first 4 KiB of the body, and its headers', async () => {
    receiver.replyWith(healthy);
    const webhookId = await subscribe();
    const sent = await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/test`, {});
    const delivery = await settled(webhookId, sent.body.id);
    expect(delivery.status).toBe('succeeded');
    expect(delivery.attempts).toEqual([
      expect.objectContaining({
        attemptNumber: 1,
        responseStatus: 200,
        error: null,
        responseBody: '{"received":true}',
        responseHeaders: { 'content-type': 'application/json', 'content-length': '17' },
      }),
    ]);
  });

  it('keeps the headers each attempt sent, its own headers masked, and the dashboard shows them beside the body', async () => {
    receiver.replyWith(healthy);
    const token = 'Bearer receiver-token-9876';
    const created = await as(h.app, org.liveKey).post('/v1/webhooks', {
      url: receiver.url,
      events: ['task.created'],
      secret: 'secret_known_secret',
      headers: { Authorization: token },
    });
    const webhookId = created.body.id as string;
    const sent = await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/test`, {});
    const delivery = await settled(webhookId, sent.body.id);
    const arrived = receiver.received.find((r) => r.headers['webhook-id'] === sent.body.id)!;
    const recorded = delivery.attempts[0].requestHeaders;
    expect(recorded).toMatchObject({
      Authorization: '****9876',
      'Content-Type': 'application/json',
      'webhook-id': sent.body.id,
      'webhook-signature': arrived.headers['webhook-signature'],
      'X-Service-Signature': arrived.headers['x-service-signature'],
    });

    const agent = await signedIn(h, { organizationId: org.organization.id, userId: org.user.id });
    const page = await agent.get(`/dashboard/webhooks/${webhookId}/deliveries/${sent.body.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Request headers sent');
    expect(page.text).toContain(`webhook-signature: ${arrived.headers['webhook-signature']}`);
    expect(page.text).toContain('Authorization: ****9876');
    expect(page.text).toContain('&quot;event&quot;: &quot;task.created&quot;');
    expect(page.text).not.toContain('receiver-token');
    expect(page.text).not.toContain('secret_known_secret');
    // Settled: the page no longer asks the script to refresh it.
    expect(page.text).not.toContain('data-refresh');
  });

  it('keeps the first 4 KiB of a long answer, and a binary one as text', async () => {
    const webhookId = await subscribe();
    receiver.replyWith({ status: 500, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(10_000) });
    const long = await settled(webhookId, (await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/test`, {})).body.id);
    expect(long.attempts[0]).toMatchObject({ responseStatus: 500, error: 'http_status: receiver answered 500', responseBody: 'x'.repeat(4096) });

    receiver.replyWith({ status: 200, headers: { 'Content-Type': 'application/octet-stream' }, body: Buffer.from([0x61, 0x00, 0x62, 0xff]) });
    const binary = await settled(webhookId, (await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/test`, {})).body.id);
    expect(binary.attempts[0]).toMatchObject({ responseStatus: 200, responseBody: 'a\uFFFDb\uFFFD' });
  });

  it('records no response for a receiver that cannot be reached', async () => {
    const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url: 'http://127.0.0.1:1/hooks', events: ['task.created'] });
    const delivery = await settled(res.body.id, (await as(h.app, org.liveKey).post(`/v1/webhooks/${res.body.id}/test`, {})).body.id);
    expect(delivery.attempts[0]).toMatchObject({
      responseStatus: null,
      responseBody: null,
      responseHeaders: null,
      error: expect.stringMatching(/^connection_error/),
    });
    await as(h.app, org.liveKey).delete(`/v1/webhooks/${res.body.id}`).expect(204);
  });
});

describe('recovering what a broken receiver missed', () => {
  it('resends the delivery that disabled the subscription and makes the ones it missed; a recovered delivery gets a fresh set of attempts', async () => {
    receiver.replyWith(broken);
    const webhookId = await subscribe(['project.created']);
    const startedAt = new Date(Date.now() - 1_000).toISOString();

    // Broken: the delivery fails seven times and the subscription is disabled.
    const firstProject = await newProject();
    const disabled = await waitFor(async () => {
      const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}`);
      return res.body.status === 'disabled' ? res.body : undefined;
    });
    expect(disabled.disabledReason).toBe('delivery_failures');
    const [failed] = (await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries`)).body.data;
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 7 });
    const failedDetail = (await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries/${failed.id}`)).body;
    expect(failedDetail.attempts[6]).toMatchObject({
      responseStatus: 503,
      responseBody: 'down for maintenance',
      responseHeaders: expect.objectContaining({ 'retry-after': '0' }),
    });

    // While disabled, an event makes no delivery.
    const beforeMissed = new Date().toISOString();
    const missedProject = await newProject();
    const missed = await waitFor(async () => {
      const events = await as(h.app, org.liveKey).get('/v1/events?type=project.created');
      return (events.body.data as { id: string; data: { id: string } }[]).find((event) => event.data.id === missedProject);
    });
    await waitFor(async () => ((await h.db.outboxEvent.findUniqueOrThrow({ where: { id: missed.id } })).dispatchedAt ? true : undefined));
    expect((await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries`)).body.pagination.total).toBe(1);

    // Re-enabled but still broken: recovery (of a window before the missed event) gives the failed
    // delivery seven more attempts, then disables the subscription again.
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${webhookId}`, { status: 'active' }).expect(200);
    expect((await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: startedAt, until: beforeMissed })).body).toEqual({ recovered: 1 });
    await waitFor(async () => ((await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}`)).body.status === 'disabled' ? true : undefined));
    const retried = await settled(webhookId, failed.id);
    expect(retried).toMatchObject({ status: 'failed', attemptCount: 14 });
    expect(retried.attempts.map((a: { attemptNumber: number }) => a.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);

    // Mended: re-enable and recover; both arrive, the failed one under its own deliveryId.
    receiver.replyWith(healthy);
    const before = receiver.received.length;
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${webhookId}`, { status: 'active' }).expect(200);
    const recovered = await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/recover`, { since: startedAt });
    expect(recovered.status).toBe(202);
    expect(recovered.body.recovered).toBe(2);
    const arrived = await waitFor(async () => {
      const got = receiver.received.slice(before).filter((d) => d.json.event === 'project.created' && d.json.webhookId === webhookId);
      return got.length >= 2 ? got : undefined;
    });
    expect(arrived.map((d) => d.json.deliveryId)).toContain(failed.id);
    const projects = arrived.map((d) => d.json.data.id as string).sort();
    expect(projects).toEqual([firstProject, missedProject].sort());
    expect((await settled(webhookId, failed.id)).status).toBe('succeeded');

    // The missed event's attempt is recorded after its arrival, maybe after the read above.
    const stats = await waitFor(async () => {
      const { body } = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/stats`);
      return body.succeeded === 2 ? body : undefined;
    });
    expect(stats).toMatchObject({ attempts: 16, succeeded: 2, failed: 14 });
  }, 30_000);
});

describe('searching the delivery log', () => {
  it('finds deliveries by delivery, event or resource id and by creation window, each with its last HTTP status and time', async () => {
    receiver.replyWith(healthy);
    const webhookId = await subscribe(['project.created', 'project.updated']);
    const log = `/v1/webhooks/${webhookId}/deliveries`;
    // One change at a time, each delivered before the next: the three are created in this order.
    const delivered = (count: number) =>
      waitFor(async () => {
        const res = await as(h.app, org.liveKey).get(log);
        return res.body.data.length === count && res.body.data.every((d: { status: string }) => d.status === 'succeeded') ? res.body.data : undefined;
      });
    const first = await newProject();
    await delivered(1);
    const second = await newProject();
    await delivered(2);
    await as(h.app, org.liveKey).patch(`/v1/projects/${first}`, { name: 'Renamed' });
    // Newest first: the update of the first project, the second's creation, the first's creation.
    const all = await delivered(3);
    expect(all[0]).toMatchObject({ lastResponseStatus: 200, lastResponseTimeMs: expect.any(Number), eventId: expect.stringMatching(/^evt_/) });

    const ids = async (query: string) => (await as(h.app, org.liveKey).get(`${log}?${query}`)).body.data.map((d: { id: string }) => d.id);
    expect(await ids(`resourceId=${first}`)).toEqual([all[0].id, all[2].id]);
    expect(await ids(`resourceId=${second}`)).toEqual([all[1].id]);
    expect(await ids(`deliveryId=${all[1].id}`)).toEqual([all[1].id]);
    expect(await ids(`eventId=${all[2].eventId}`)).toEqual([all[2].id]);
    expect(await ids(`since=${encodeURIComponent(all[1].createdAt)}`)).toEqual([all[0].id, all[1].id]);
    expect(await ids(`until=${encodeURIComponent(all[1].createdAt)}`)).toEqual([all[2].id]);
    expect(await ids('resourceId=tsk_none')).toEqual([]);
    const refused = await as(h.app, org.liveKey).get(`${log}?resourceId=${encodeURIComponent('"id":"x')}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('resourceId');
  });

  it('narrows to a range of days (UTC) in the dashboard, the last day included', async () => {
    receiver.replyWith(healthy);
    const webhookId = await subscribe(['project.created']);
    await newProject();
    const [delivery] = await waitFor(async () => {
      const { data } = (await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries`)).body;
      return data.length > 0 ? data : undefined;
    });
    const day = (offset: number) => new Date(Date.parse(delivery.createdAt.slice(0, 10)) + offset * 24 * 3600 * 1000).toISOString().slice(0, 10);
    const agent = await signedIn(h, { organizationId: org.organization.id, userId: org.user.id });
    const shown = async (range: string) => {
      const page = await agent.get(`/dashboard/webhooks/${webhookId}?${range}`);
      expect(page.status).toBe(200);
      return page.text.includes(delivery.id);
    };
    expect(await shown(`from=${day(0)}&to=${day(0)}`)).toBe(true);
    expect(await shown(`to=${day(-1)}`)).toBe(false);
    expect(await shown(`from=${day(1)}`)).toBe(false);
  });
});
