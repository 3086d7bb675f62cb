import { randomBytes } from 'node:crypto';
import { verify as verifyGitHubStyle } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { newId } from '@worktrack/db';
import { as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { receiversClosedAfterEach, type Received } from '@test-support/receiver';
import { startTestWorker } from '@test-support/worker-harness';

/*
 * docs/decisions.md#http-behaviour-and-secrets-at-rest from the worker's side: the table holds the signing secrets sealed under
 * SECRETS_KEY, and the worker, which opens them, still signs what receivers verify with the secret
 * the API reveals, through a rotation of the secret and one of SECRETS_KEY.
 */

const newKey = () => randomBytes(32).toString('base64');
const [firstKey, secondKey] = [newKey(), newKey()];

let h: Harness;
let org: TestOrg;
const running: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', SECRETS_KEY: firstKey });
  org = await createOrg(h.db);
});
afterEach(() => stopAll());
afterAll(() => h.close());

const receiverFor = receiversClosedAfterEach();

function workerWith(env: NodeJS.ProcessEnv) {
  const worker = startTestWorker({ prefix: h.deps.config.redisPrefix, env });
  running.push(worker);
  return worker;
}

async function stopAll() {
  await Promise.all(running.splice(0).map((service) => service.close()));
}

/** A project.created delivery, as the receiver got it. */
async function nextDelivery(receiver: Awaited<ReturnType<typeof receiverFor>>, api: Harness = h): Promise<Received> {
  const before = receiver.received.length;
  await as(api.app, org.liveKey).post('/v1/projects', { name: 'Signed with a sealed secret' }).expect(201);
  return (await receiver.waitForCount(before + 1))[before]!;
}

const standard = (secret: string) => new StandardWebhook(secret.startsWith('whsec_') ? secret : `whsec_${Buffer.from(secret).toString('base64')}`);

async function expectSignedWith(delivery: Received, secret: string) {
  expect(await verifyGitHubStyle(secret, delivery.body, delivery.headers['x-service-signature'] as string)).toBe(true);
  expect(standard(secret).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(delivery.json);
}

async function tableText(): Promise<string> {
  const { rows } = await h.pool.query('SELECT * FROM "Webhook"');
  return JSON.stringify(rows);
}

it('signs with the secret the API reveals while the table holds it sealed, through a rotation of the secret and of SECRETS_KEY', async () => {
  workerWith({ SECRETS_KEY: firstKey });
  const receiver = await receiverFor();
  const created = await as(h.app, org.liveKey)
    .post('/v1/webhooks', { url: receiver.url, events: ['project.created'] })
    .expect(201);
  const webhookId: string = created.body.id;
  const reveal = async (api: Harness = h) => (await as(api.app, org.liveKey).get(`/v1/webhooks/${webhookId}/secret`).expect(200)).body.secret as string;

  const generated = await reveal();
  expect(generated).toBe(created.body.secret);
  expect(await tableText()).not.toContain(generated.slice('whsec_'.length));
  await expectSignedWith(await nextDelivery(receiver), generated);

  // A new secret: the table holds neither it nor the previous one, which still signs webhook-signature.
  await as(h.app, org.liveKey).patch(`/v1/webhooks/${webhookId}`, { secret: 'secret_rotated_while_sealed' }).expect(200);
  const rotated = await reveal();
  expect(rotated).toBe('secret_rotated_while_sealed');
  const dump = await tableText();
  for (const secret of [generated.slice('whsec_'.length), rotated]) expect(dump).not.toContain(secret);
  const afterRotation = await nextDelivery(receiver);
  await expectSignedWith(afterRotation, rotated);
  expect(standard(generated).verify(afterRotation.body, afterRotation.headers as Record<string, string>)).toEqual(afterRotation.json);

  // A new SECRETS_KEY, the old one as SECRETS_KEY_PREVIOUS, in the API and a new worker alike.
  await stopAll();
  const rotatedKeys = { SECRETS_KEY: secondKey, SECRETS_KEY_PREVIOUS: firstKey };
  const api = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', REDIS_PREFIX: h.deps.config.redisPrefix, ...rotatedKeys });
  running.push(api);
  workerWith(rotatedKeys);
  expect(await reveal(api)).toBe(rotated);
  await expectSignedWith(await nextDelivery(receiver, api), rotated);
  await h.db.webhook.delete({ where: { id: webhookId } });
});

it('signs for a subscription written before sealing with its plaintext secret, until the API seals it', async () => {
  workerWith({ SECRETS_KEY: firstKey });
  const receiver = await receiverFor();
  const webhookId = newId('webhook');
  await h.db.webhook.create({
    data: {
      id: webhookId,
      organizationId: org.organization.id,
      mode: 'live',
      url: receiver.url,
      events: ['project.created'],
      secret: 'secret_from_before_sealing',
    },
  });
  await expectSignedWith(await nextDelivery(receiver), 'secret_from_before_sealing');
  await h.db.webhook.delete({ where: { id: webhookId } });
});
