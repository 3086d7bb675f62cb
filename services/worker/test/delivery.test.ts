import { verify as verifyGitHubStyle } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { receiversClosedAfterEach, type Received } from '@test-support/receiver';
import { startTestWorker } from '@test-support/worker-harness';

let h: Harness;
let worker: ReturnType<typeof startTestWorker>;
const closers: (() => Promise<void>)[] = [];
/**
 * A lease no busy test machine outlasts: a worker stalled past its lease has its attempt made again
 * by another (docs/webhooks.md), which would read here as a delivery made twice. Takeover has tests
 * of its own (takeover.test.ts).
 */
const LONG_LEASE = { WORKER_LOCK_DURATION_MS: '15000' };

beforeAll(() => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  worker = startTestWorker({ prefix: h.deps.config.redisPrefix, env: LONG_LEASE });
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

const receiverFor = receiversClosedAfterEach();

async function subscribe(key: string, url: string, events: string[] = ['*'], secret = 'secret_test_secret_value') {
  const res = await as(h.app, key).post('/v1/webhooks', { url, events, secret });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function newProject(org: TestOrg, key = org.liveKey) {
  return (await as(h.app, key).post('/v1/projects', { name: 'Hooks' })).body.id as string;
}

const deliveryLog = async (org: TestOrg, webhookId: string, deliveryId: string) =>
  (await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries/${deliveryId}`)).body;

describe('webhook delivery', () => {
  it("delivers SPEC's body, signed so that GitHub-style and Standard Webhooks verifiers accept it", async () => {
    const org = await createOrg(h.db);
    const receiver = await receiverFor();
    const secret = 'secret_verify_me_please';
    const webhookId = await subscribe(org.liveKey, receiver.url, ['task.created'], secret);
    const projectId = await newProject(org);
    const task = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Signed', projectId })).body;

    const [delivery] = await receiver.waitForCount(1);
    const { headers, body, json } = delivery!;
    expect(Object.keys(json).sort()).toEqual(['actor', 'data', 'deliveryId', 'event', 'organization', 'timestamp', 'webhookId']);
    expect(json).toMatchObject({ event: 'task.created', webhookId, data: task, organization: { id: org.organization.id, name: org.organization.name } });
    // The key's user caused it, through that key (docs/decisions.md#history-actors-and-live-events).
    expect(json.actor).toEqual({ type: 'user', userId: org.user.id, apiKeyId: expect.stringMatching(/^key_/) });
    expect(json.deliveryId).toMatch(/^dlv_/);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-service-event']).toBe('task.created');
    expect(headers['x-service-delivery']).toBe(json.deliveryId);
    expect(headers['webhook-id']).toBe(json.deliveryId);
    expect(await verifyGitHubStyle(secret, body, headers['x-service-signature'] as string)).toBe(true);
    expect(await verifyGitHubStyle('another secret', body, headers['x-service-signature'] as string)).toBe(false);
    const standard = new StandardWebhook(`whsec_${Buffer.from(secret).toString('base64')}`);
    expect(standard.verify(body, headers as Record<string, string>)).toEqual(json);
  });

  it('keys webhook-signature with the decoded bytes of a whsec_ + base64 secret, so new Webhook(secret) verifies it as it is', async () => {
    const org = await createOrg(h.db);
    const receiver = await receiverFor();
    const secret = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;
    await subscribe(org.liveKey, receiver.url, ['project.created'], secret);
    await newProject(org);

    const [{ headers, body, json }] = (await receiver.waitForCount(1)) as [Received];
    expect(new StandardWebhook(secret).verify(body, headers as Record<string, string>)).toEqual(json);
    expect(await verifyGitHubStyle(secret, body, headers['x-service-signature'] as string)).toBe(true);
  });

  it('signs with the previous secret too after a rotation, so receivers still on it verify', async () => {
    const org = await createOrg(h.db);
    const receiver = await receiverFor();
    const [oldSecret, newSecret] = ['secret-before-rotation', 'secret-after-rotation'];
    const webhookId = await subscribe(org.liveKey, receiver.url, ['project.created'], oldSecret);
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${webhookId}`, { secret: newSecret }).expect(200);
    await newProject(org);

    const [{ headers, body, json }] = (await receiver.waitForCount(1)) as [Received];
    const verifier = (secret: string) => new StandardWebhook(`whsec_${Buffer.from(secret).toString('base64')}`);
    expect(verifier(newSecret).verify(body, headers as Record<string, string>)).toEqual(json);
    expect(verifier(oldSecret).verify(body, headers as Record<string, string>)).toEqual(json);
    expect(() => verifier('another-secret').verify(body, headers as Record<string, string>)).toThrow();
    expect(await verifyGitHubStyle(newSecret, body, headers['x-service-signature'] as string)).toBe(true);
  });

  it('retries a failure with the same deliveryId and logs both attempts', async () => {
    const org = await createOrg(h.db);
    const receiver = await receiverFor((n) => ({ status: n === 0 ? 500 : 200 }));
    const webhookId = await subscribe(org.liveKey, receiver.url, ['project.created']);
    await newProject(org);

    const [first, second] = await receiver.waitForCount(2);
    expect(second!.json.deliveryId).toBe(first!.json.deliveryId);
    expect(second!.body).toBe(first!.body);
    const log = await waitFor(async () => {
      const entry = await deliveryLog(org, webhookId, first!.json.deliveryId);
      return entry.status === 'succeeded' ? entry : undefined;
    });
    expect(log.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([500, 200]);
    expect(log.attempts[0].error).toMatch(/^http_status/);
    expect(log.attempts[1].error).toBeNull();
    expect(log.attempts[0]).toEqual({
      attemptNumber: 1,
      attemptedAt: expect.any(String),
      responseStatus: 500,
      responseTimeMs: expect.any(Number),
      error: expect.any(String),
      responseBody: 'ok',
      responseHeaders: { 'content-type': 'text/plain', 'content-length': '2' },
      requestHeaders: expect.objectContaining({ 'webhook-id': first!.json.deliveryId, 'webhook-signature': first!.headers['webhook-signature'] }),
    });

    const listed = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries?status=succeeded&event=project.created`);
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([first!.json.deliveryId]);
  });

  it('makes exactly 7 attempts, then disables the subscription until it is re-enabled', async () => {
    const org = await createOrg(h.db);
    let healthy = false;
    const receiver = await receiverFor(() => ({ status: healthy ? 200 : 503 }));
    const webhookId = await subscribe(org.liveKey, receiver.url, ['project.created', 'project.updated']);
    const projectId = await newProject(org);

    const disabled = await waitFor(async () => {
      const webhook = (await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}`)).body;
      return webhook.status === 'disabled' ? webhook : undefined;
    });
    expect(disabled).toMatchObject({ disabledReason: 'delivery_failures', disabledAt: expect.any(String) });
    expect(receiver.received).toHaveLength(7);
    const deliveryId = receiver.received[0]!.json.deliveryId;
    expect(new Set(receiver.received.map((r) => r.json.deliveryId))).toEqual(new Set([deliveryId]));
    const log = await deliveryLog(org, webhookId, deliveryId);
    expect(log.status).toBe('failed');
    expect(log.attempts.map((a: { attemptNumber: number }) => a.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6, 7]);

    // While disabled, events make no deliveries.
    await as(h.app, org.liveKey).patch(`/v1/projects/${projectId}`, { name: 'Quiet' }).expect(200);
    await waitFor(async () =>
      (await h.db.outboxEvent.count({ where: { organizationId: org.organization.id, dispatchedAt: null } })) === 0 ? true : undefined,
    );
    expect(await h.db.delivery.count({ where: { webhookId } })).toBe(1);

    healthy = true;
    const reenabled = await as(h.app, org.liveKey).patch(`/v1/webhooks/${webhookId}`, { status: 'active' });
    expect(reenabled.body).toMatchObject({ status: 'active', disabledReason: null, disabledAt: null });
    await as(h.app, org.liveKey).patch(`/v1/projects/${projectId}`, { name: 'Loud' }).expect(200);
    const arrived = await receiver.waitForCount(8);
    expect(arrived[7]!.json).toMatchObject({ event: 'project.updated', data: { name: 'Loud' } });

    const redelivered = await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`);
    expect(redelivered.status).toBe(202);
    const again = await receiver.waitForCount(9);
    expect(again[8]!.json.deliveryId).toBe(deliveryId);
    await waitFor(async () => ((await deliveryLog(org, webhookId, deliveryId)).status === 'succeeded' ? true : undefined));
  });

  it("never delivers an unsubscribed type or another organization's events, and test subscriptions get only test events", async () => {
    const org = await createOrg(h.db);
    const other = await createOrg(h.db);
    const liveReceiver = await receiverFor();
    const testReceiver = await receiverFor();
    await subscribe(org.liveKey, liveReceiver.url, ['project.created']);
    await subscribe(org.testKey, testReceiver.url, ['*']);

    const liveProject = await newProject(org);
    await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Unsubscribed type', projectId: liveProject }).expect(201);
    await newProject(other);
    const testProject = await newProject(org, org.testKey);

    await liveReceiver.waitForCount(1);
    await testReceiver.waitForCount(1);
    await waitFor(async () =>
      (await h.db.outboxEvent.count({ where: { organizationId: { in: [org.organization.id, other.organization.id] }, dispatchedAt: null } })) === 0
        ? true
        : undefined,
    );
    expect(liveReceiver.received.map((r) => [r.json.event, r.json.data.id])).toEqual([['project.created', liveProject]]);
    expect(testReceiver.received.map((r) => [r.json.event, r.json.data.id])).toEqual([['project.created', testProject]]);
  });

  it('counts an answer after the 5 s deadline as a failure', async () => {
    // The file's worker (a 2 s deadline) gives way to one with the shipped deadline: deliveries are
    // claimed in Postgres, whatever queues a worker consumes, so two on one database race for them.
    await worker.close();
    worker = startTestWorker({ prefix: h.deps.config.redisPrefix, env: { ...LONG_LEASE, WEBHOOK_TIMEOUT_MS: '5000' } });
    closers.push(async () => {
      await worker.close();
      worker = startTestWorker({ prefix: h.deps.config.redisPrefix, env: LONG_LEASE });
    });
    const org = await createOrg(h.db);
    const receiver = await receiverFor((n) => (n === 0 ? { status: 200, delayMs: 6_000 } : { status: 200 }));
    const webhookId = await subscribe(org.liveKey, receiver.url, ['project.created']);
    await newProject(org);

    const [first] = await receiver.waitForCount(2, 20_000);
    const log = await waitFor(async () => {
      const entry = await deliveryLog(org, webhookId, first!.json.deliveryId);
      return entry.status === 'succeeded' ? entry : undefined;
    });
    expect(log.attempts[0]).toMatchObject({ responseStatus: null, error: expect.stringMatching(/^timeout/) });
    expect(log.attempts[0].responseTimeMs).toBeGreaterThanOrEqual(4_900);
    expect(log.attempts[0].responseTimeMs).toBeLessThan(6_000);
  }, 30_000);

  it('sends a test delivery marked test: true and logs it', async () => {
    const org = await createOrg(h.db);
    const receiver = await receiverFor();
    const webhookId = await subscribe(org.liveKey, receiver.url, ['comment.created']);
    const res = await as(h.app, org.liveKey).post(`/v1/webhooks/${webhookId}/test`, {});
    expect(res.status).toBe(201);
    const [delivery] = await receiver.waitForCount(1);
    expect(delivery!.json).toMatchObject({ event: 'comment.created', test: true, deliveryId: res.body.id, webhookId });
    await waitFor(async () => ((await deliveryLog(org, webhookId, res.body.id)).status === 'succeeded' ? true : undefined));
  });

  it('delays events while Redis refuses the API, and delivers them once the sweep runs', async () => {
    const org = await createOrg(h.db);
    const receiver = await receiverFor();
    await subscribe(org.liveKey, receiver.url, ['project.created']);
    const cutOff = createHarness({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX: h.deps.config.redisPrefix });
    closers.push(cutOff.close);
    const project = await as(cutOff.app, org.liveKey).post('/v1/projects', { name: 'Published later' });
    expect(project.status).toBe(201);
    const [delivery] = await receiver.waitForCount(1);
    expect(delivery!.json.data.id).toBe(project.body.id);
  });

  it('lets two workers share the queue without delivering anything twice', async () => {
    const org = await createOrg(h.db);
    const receiver = await receiverFor();
    await subscribe(org.liveKey, receiver.url, ['task.created']);
    const second = startTestWorker({ prefix: h.deps.config.redisPrefix, env: LONG_LEASE });
    closers.push(second.close);
    const projectId = await newProject(org);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        as(h.app, org.liveKey)
          .post('/v1/tasks', { title: `T${i}`, projectId })
          .expect(201),
      ),
    );
    await receiver.waitForCount(40);
    await waitFor(async () => ((await h.db.delivery.count({ where: { organizationId: org.organization.id, status: 'pending' } })) === 0 ? true : undefined));
    // Every attempt reached the receiver once: two workers making the same attempt would show as a
    // request more than the attempts recorded (the later record is refused). On a loaded machine a
    // request answered after the deadline is retried, a new attempt, and counts on both sides.
    const attempts = await h.db.deliveryAttempt.count({ where: { delivery: { organizationId: org.organization.id } } });
    expect(receiver.received).toHaveLength(attempts);
    expect(new Set(receiver.received.map((r) => r.json.deliveryId)).size).toBe(40);
    expect(await h.db.delivery.count({ where: { organizationId: org.organization.id, status: 'succeeded' } })).toBe(40);
  });
});
