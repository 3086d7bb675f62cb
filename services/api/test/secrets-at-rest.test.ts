import { randomBytes, randomUUID } from 'node:crypto';
import { createLogger, loadApiConfig, loadWorkerConfig } from '@worktrack/config';
import { newId, SecretBox, webhookSecretContext } from '@worktrack/db';
import { startApi } from '../src/compose';
import { exitCode, runBundled } from '@test-support/processes';
import { csrfOf, signedIn } from '@test-support/dashboard-session';
import { addMember, as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';

/*
 * Webhook signing secrets at rest (docs/decisions.md#http-behaviour-and-secrets-at-rest): sealed with AES-256-GCM under SECRETS_KEY, so a
 * read of the table reveals none; revealed to webhooks:write alone. The worker's side (it signs
 * with what it opens) is in services/worker/test/sealed-secrets.test.ts.
 */

const HOOK_URL = 'https://93.184.215.14/hooks';
const newKey = () => randomBytes(32).toString('base64');

let h: Harness;
let org: TestOrg;
const harnesses: Harness[] = [];

beforeAll(async () => {
  h = createHarness({ SECRETS_KEY: newKey() });
  org = await createOrg(h.db);
});
afterAll(async () => {
  await Promise.all(harnesses.map((harness) => harness.close()));
  await h.close();
});

function harnessWith(env: NodeJS.ProcessEnv): Harness {
  const harness = createHarness(env);
  harnesses.push(harness);
  return harness;
}

/** Every column of the subscription's row, as a database dump would have it. */
async function rowText(id: string): Promise<string> {
  const { rows } = await h.pool.query('SELECT * FROM "Webhook" WHERE id = $1', [id]);
  expect(rows).toHaveLength(1);
  return JSON.stringify(rows[0]);
}

/** A subscription written as a version before sealing left it: secrets in plaintext. */
async function plaintextRow(secret: string, previousSecret: string | null = null): Promise<string> {
  const id = newId('webhook');
  await h.db.webhook.create({
    data: {
      id,
      organizationId: org.organization.id,
      mode: 'live',
      url: HOOK_URL,
      events: ['*'],
      secret,
      previousSecret,
      previousSecretExpiresAt: previousSecret && new Date(Date.now() + 3600_000),
    },
  });
  return id;
}

const reveal = (harness: Harness, id: string) => as(harness.app, org.liveKey).get(`/v1/webhooks/${id}/secret`);

describe('the Webhook table', () => {
  it('holds no secret in plaintext, neither a generated one nor, after a rotation, the current or the previous one', async () => {
    const generated = await as(h.app, org.liveKey)
      .post('/v1/webhooks', { url: HOOK_URL, events: ['*'] })
      .expect(201);
    const id: string = generated.body.id;
    const first: string = generated.body.secret;
    expect(await rowText(id)).not.toContain(first.slice('whsec_'.length));

    await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { secret: 'secret_rotated_in_plain_sight' }).expect(200);
    const dump = await rowText(id);
    for (const secret of [first.slice('whsec_'.length), 'secret_rotated_in_plain_sight', 'rotated_in_plain']) expect(dump).not.toContain(secret);
    const row = await h.db.webhook.findUniqueOrThrow({ where: { id } });
    expect(row.secret).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(row.previousSecret).toMatch(/^v1:[0-9a-f]{8}:/);
    expect((await reveal(h, id).expect(200)).body).toEqual({ secret: 'secret_rotated_in_plain_sight' });
  });
});

describe('rotating SECRETS_KEY', () => {
  it('opens what the old key sealed while it is SECRETS_KEY_PREVIOUS, and a reseal moves every secret under the new key', async () => {
    const [oldKey, newKeyValue] = [newKey(), newKey()];
    const before = harnessWith({ SECRETS_KEY: oldKey });
    const id: string = (
      await as(before.app, org.liveKey)
        .post('/v1/webhooks', { url: HOOK_URL, events: ['*'], secret: 'secret_through_rotation' })
        .expect(201)
    ).body.id;
    await as(before.app, org.liveKey).patch(`/v1/webhooks/${id}`, { secret: 'secret_after_both_rotations' }).expect(200);

    const rotating = harnessWith({ SECRETS_KEY: newKeyValue, SECRETS_KEY_PREVIOUS: oldKey });
    expect((await reveal(rotating, id).expect(200)).body).toEqual({ secret: 'secret_after_both_rotations' });
    // Without the old key nothing opens what it sealed: the answer is an error, never a wrong secret.
    const newKeyOnly = harnessWith({ SECRETS_KEY: newKeyValue });
    expect((await reveal(newKeyOnly, id)).status).toBe(500);

    await rotating.deps.unscoped.resealWebhookSecrets(rotating.deps.secrets);
    const row = await h.db.webhook.findUniqueOrThrow({ where: { id } });
    const newKeyId = new SecretBox([Buffer.from(newKeyValue, 'base64')]).currentKeyId;
    expect([row.secret, row.previousSecret].map((value) => value!.split(':')[1])).toEqual([newKeyId, newKeyId]);
    expect((await reveal(newKeyOnly, id).expect(200)).body).toEqual({ secret: 'secret_after_both_rotations' });
    const context = webhookSecretContext(id);
    expect(newKeyOnly.deps.secrets.open(row.previousSecret!, context)).toBe('secret_through_rotation');
  });
});

describe('secrets written before sealing', () => {
  it('are sealed when the API starts, and still revealed as they were', async () => {
    const id = await plaintextRow('secret_from_before_sealing', 'secret_previous_from_before');
    const secretsKey = newKey();
    const api = await startApi(
      loadApiConfig({ ...process.env, PORT: '0', SECRETS_KEY: secretsKey, REDIS_PREFIX: `wt-test-${randomUUID().slice(0, 8)}` }),
      createLogger('silent', 'test'),
    );
    try {
      const row = await waitFor(async () => {
        const row = await h.db.webhook.findUniqueOrThrow({ where: { id } });
        return row.secret.startsWith('v1:') && row.previousSecret?.startsWith('v1:') ? row : undefined;
      });
      expect(JSON.stringify(row)).not.toMatch(/from_before/);
      const res = await fetch(`${api.url}/v1/webhooks/${id}/secret`, { headers: { Authorization: `Bearer ${org.liveKey}` } });
      expect(await res.json()).toEqual({ secret: 'secret_from_before_sealing' });
      const box = new SecretBox([Buffer.from(secretsKey, 'base64')]);
      expect(box.open(row.previousSecret!, webhookSecretContext(id))).toBe('secret_previous_from_before');
    } finally {
      await api.close();
    }
  });

  it('are sealed by `pnpm cli secrets reseal`, which exits 1 while a secret opens under no configured key', async () => {
    // The command reports on the whole table: this test starts from an empty one.
    await h.db.webhook.deleteMany({});
    const secretsKey = newKey();
    const id = await plaintextRow('secret_sealed_by_the_cli');
    const lost = await h.db.webhook.update({
      where: { id: await plaintextRow('x') },
      data: { secret: new SecretBox([randomBytes(32)]).seal('lost', 'elsewhere') },
    });

    const cli = (env: NodeJS.ProcessEnv) => runBundled('cli', ['secrets', 'reseal', '--json'], env);
    const first = cli({ SECRETS_KEY: secretsKey });
    expect(await exitCode(first)).toBe(1);
    expect(JSON.parse(first.output())).toEqual({ sealed: 1, resealed: 0, unreadable: 1, remaining: 1 });
    const row = await h.db.webhook.findUniqueOrThrow({ where: { id } });
    expect(new SecretBox([Buffer.from(secretsKey, 'base64')]).open(row.secret, webhookSecretContext(id))).toBe('secret_sealed_by_the_cli');

    await h.db.webhook.delete({ where: { id: lost.id } });
    const second = runBundled('cli', ['secrets', 'reseal'], { SECRETS_KEY: secretsKey });
    expect(await exitCode(second)).toBe(0);
    expect(second.output()).toContain('Every webhook secret is sealed under SECRETS_KEY');
  });
});

describe('SECRETS_KEY', () => {
  it('is required in production by both services, base64 of 32 bytes; elsewhere a key is derived, the same in every process', () => {
    const production = { NODE_ENV: 'production', CURSOR_SECRET: 'x'.repeat(32) };
    for (const load of [loadApiConfig, loadWorkerConfig]) {
      expect(() => load(production)).toThrow(/^Invalid configuration: SECRETS_KEY is required in production \(NODE_ENV=production\)/);
      expect(() => load({ ...production, SECRETS_KEY: '' })).toThrow(/SECRETS_KEY is required in production/);
      expect(() => load({ ...production, SECRETS_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/SECRETS_KEY must be base64 of 32 random bytes/);
      expect(() => load({ ...production, SECRETS_KEY: newKey(), SECRETS_KEY_PREVIOUS: 'short' })).toThrow(
        /SECRETS_KEY_PREVIOUS must be base64 of 32 random bytes/,
      );
      const key = newKey();
      const previous = newKey();
      expect(load({ ...production, SECRETS_KEY: key, SECRETS_KEY_PREVIOUS: previous })).toMatchObject({
        secretsKeys: [Buffer.from(key, 'base64'), Buffer.from(previous, 'base64')],
        secretsKeyDerived: false,
      });
    }
    const [api, worker] = [loadApiConfig({}), loadWorkerConfig({})];
    expect(api.secretsKeyDerived).toBe(true);
    expect(api.secretsKeys).toEqual(worker.secretsKeys);
    expect(api.secretsKeys).toHaveLength(1);
  });

  it.each([
    ['API', 'api'],
    ['worker', 'worker'],
  ] as const)('missing in production, the %s refuses to start with one line naming it', async (_name, entry) => {
    const child = runBundled(entry, [], {
      NODE_ENV: 'production',
      CURSOR_SECRET: 'x'.repeat(32),
      SECRETS_KEY: '',
      SECRETS_KEY_PREVIOUS: '',
      WORKER_HEALTH_PORT: '0',
      PORT: '0',
    });
    expect(await exitCode(child)).toBe(1);
    const lines = child.output().trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^Invalid configuration: SECRETS_KEY is required in production \(NODE_ENV=production\): base64 of 32 random bytes/),
    ]);
  });
});

describe('the dashboard', () => {
  it("reveals the current secret to an admin on the subscription's page, through a CSRF-protected form", async () => {
    const id = (
      await as(h.app, org.liveKey)
        .post('/v1/webhooks', { url: HOOK_URL, events: ['*'], secret: 'secret_for_the_dashboard' })
        .expect(201)
    ).body.id;
    const admin = await signedIn(h, { organizationId: org.organization.id, userId: org.user.id });
    const page = await admin.get(`/dashboard/webhooks/${id}`);
    expect(page.text).toContain(`action="/dashboard/webhooks/${id}/secret/reveal"`);
    expect(page.text).not.toContain('secret_for_the_dashboard');

    expect((await admin.post(`/dashboard/webhooks/${id}/secret/reveal`).type('form').send({})).status).toBe(403);
    const revealed = await admin
      .post(`/dashboard/webhooks/${id}/secret/reveal`)
      .type('form')
      .send({ _csrf: csrfOf(page.text) });
    // Post/redirect/get: the secret is on the page the POST redirects to, once.
    expect(revealed.status).toBe(303);
    expect(revealed.text).not.toContain('secret_for_the_dashboard');
    const shown = await admin.get(revealed.headers.location!);
    expect(shown.headers['cache-control']).toBe('no-store');
    expect(shown.text).toContain('<code id="shown-once">secret_for_the_dashboard</code>');
    expect((await admin.get(revealed.headers.location!)).text).not.toContain('secret_for_the_dashboard');
  });

  it('shows a guest no reveal form and refuses it the secret', async () => {
    const id = (
      await as(h.app, org.liveKey)
        .post('/v1/webhooks', { url: HOOK_URL, events: ['*'], secret: 'secret_not_for_guests' })
        .expect(201)
    ).body.id;
    const guest = await signedIn(h, { organizationId: org.organization.id, userId: (await addMember(h.db, org, { role: 'guest' })).userId });
    // Subscriptions are the admins' alone (docs/decisions.md#tenancy-and-keys): a guest gets no page of them at all.
    const page = await guest.get(`/dashboard/webhooks/${id}`);
    expect(page.status).toBe(403);
    expect(page.text).not.toContain('/secret/reveal');
    const refused = await guest
      .post(`/dashboard/webhooks/${id}/secret/reveal`)
      .type('form')
      .send({ _csrf: csrfOf((await guest.get('/dashboard')).text) });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('secret_not_for_guests');
  });
});
