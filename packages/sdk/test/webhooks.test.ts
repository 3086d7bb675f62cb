import { once } from 'node:events';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createHarness, createOrg, type Harness } from '@test-support/api-harness.js';
import { waitFor } from '@test-support/wait-for.js';
import { startTestWorker } from '@test-support/worker-harness.js';
import { buildDeliveryHeaders, signBody } from '../../webhooks/src/index.js';
import { createClient, unwrap, type WorktrackClient } from '../src/index.js';
import { standardWebhooksKey, verifyWebhook, WebhookVerificationError, type VerifiedWebhook, type VerifyWebhookOptions } from '../src/webhooks.js';

const SIGNED_AT = new Date('2026-11-21T10:00:00.000Z');
const SIGNED_AT_SECONDS = SIGNED_AT.getTime() / 1000;
const body = JSON.stringify({ event: 'project.created', deliveryId: 'dlv_01', data: { name: 'Ünïcødé ✓' } });

/** What `verifyWebhook` refused it for, or 'accepted'. */
function outcome(...args: Parameters<typeof verifyWebhook>): string {
  try {
    verifyWebhook(...args);
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

const base64Of = (length: number) => Buffer.alloc(length, 7).toString('base64');

describe("verifyWebhook on headers made by the API's own signer", () => {
  const secret = 'plain-secret-ü-1234';
  const headers = buildDeliveryHeaders({ secret, deliveryId: 'dlv_01', eventType: 'project.created', body, now: SIGNED_AT });
  const at = (offsetSeconds: number): VerifyWebhookOptions => ({ now: (SIGNED_AT_SECONDS + offsetSeconds) * 1000 });

  it('accepts a genuine delivery in either scheme, with Node-style, fetch-style or any-case headers and a string or bytes', () => {
    const result = verifyWebhook(body, headers, secret, at(0));
    expect(result).toEqual({ scheme: 'standard-webhooks', deliveryId: 'dlv_01', timestamp: SIGNED_AT, payload: JSON.parse(body) });
    expect(verifyWebhook(Buffer.from(body), headers, secret, { ...at(0), scheme: 'x-service-signature' })).toEqual({
      ...result,
      scheme: 'x-service-signature',
    });
    const lowerCase = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(lowerCase), secret, at(0)).scheme).toBe('standard-webhooks');
    const { 'webhook-signature': _standard, ...githubStyleOnly } = lowerCase;
    expect(verifyWebhook(body, githubStyleOnly, secret, at(0)).scheme).toBe('x-service-signature');
  });

  it.each(['standard-webhooks', 'x-service-signature'] as const)('%s: refuses a tampered body, another secret, and a stale or future timestamp', (scheme) => {
    const tampered = body.replace('Ünïcødé', 'Tampered');
    expect(outcome(tampered, headers, secret, { ...at(0), scheme })).toBe('invalid_signature');
    expect(outcome(body, headers, 'another-secret', { ...at(0), scheme })).toBe('invalid_signature');
    expect(outcome(body, headers, secret, { ...at(300), scheme })).toBe('accepted');
    expect(outcome(body, headers, secret, { ...at(301), scheme })).toBe('timestamp_too_old');
    expect(outcome(body, headers, secret, { ...at(-301), scheme })).toBe('timestamp_too_new');
    expect(outcome(body, headers, secret, { ...at(60), scheme, toleranceSeconds: 30 })).toBe('timestamp_too_old');
  });

  it('refuses a Standard Webhooks signature moved to another timestamp (the timestamp is signed)', () => {
    expect(outcome(body, { ...headers, 'webhook-timestamp': String(SIGNED_AT_SECONDS + 100) }, secret, at(100))).toBe('invalid_signature');
  });

  it('accepts either secret during a rotation, and ignores signatures of other versions', () => {
    const rotated = buildDeliveryHeaders({
      secret: 'secret-after',
      previousSecret: 'secret-before',
      deliveryId: 'dlv_01',
      eventType: 'project.created',
      body,
      now: SIGNED_AT,
    });
    expect(rotated['webhook-signature'].split(' ')).toHaveLength(2);
    expect(outcome(body, rotated, 'secret-after', at(0))).toBe('accepted');
    expect(outcome(body, rotated, 'secret-before', at(0))).toBe('accepted');
    expect(outcome(body, rotated, 'secret-other', at(0))).toBe('invalid_signature');
    const signature = headers['webhook-signature'].slice('v1,'.length);
    expect(outcome(body, { ...headers, 'webhook-signature': `v1a,${signature}` }, secret, at(0))).toBe('invalid_signature');
    expect(outcome(body, { ...headers, 'webhook-signature': `v2,xxx v1,${signature}` }, secret, at(0))).toBe('accepted');
  });

  it('names what is missing or malformed', () => {
    expect(outcome(body, {}, secret, at(0))).toBe('missing_signature');
    expect(outcome(body, { 'webhook-signature': headers['webhook-signature'] }, secret, { ...at(0), scheme: 'x-service-signature' })).toBe('missing_signature');
    expect(outcome(body, { ...headers, 'webhook-id': undefined }, secret, at(0))).toBe('missing_headers');
    expect(outcome(body, { ...headers, 'webhook-timestamp': '2026-11-21T10:00:00Z' }, secret, at(0))).toBe('invalid_timestamp');
    const notJson = 'not json';
    const signed = buildDeliveryHeaders({ secret, deliveryId: 'dlv_02', eventType: 'project.created', body: notJson, now: SIGNED_AT });
    expect(outcome(notJson, signed, secret, at(0))).toBe('invalid_payload');
  });

  it('refuses a parsed body with a TypeError that says how to get the raw one', () => {
    expect(() => verifyWebhook(JSON.parse(body) as never, headers, secret, at(0))).toThrow(/express\.raw/);
  });
});

describe('verifyWebhook with whsec_ secrets (docs/decisions.md#webhooks)', () => {
  it('keys webhook-signature with the decoded bytes of whsec_ + base64 of 24-64 bytes, else with the UTF-8 bytes', () => {
    const utf8 = (secret: string) => Buffer.from(secret, 'utf8');
    for (const length of [24, 32, 64]) expect(Buffer.from(standardWebhooksKey(`whsec_${base64Of(length)}`))).toEqual(Buffer.alloc(length, 7));
    for (const secret of [
      `whsec_${base64Of(23)}`,
      `whsec_${base64Of(65)}`,
      'whsec_',
      'whsec_not base64!',
      `whsec_${base64Of(32).replace(/=+$/, '')}`,
      'plain-secret',
    ]) {
      expect(Buffer.from(standardWebhooksKey(secret))).toEqual(utf8(secret));
    }
    const urlSafe = `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`; // '-' and '_' are not base64's alphabet
    expect(Buffer.from(standardWebhooksKey(urlSafe))).toEqual(utf8(urlSafe));
  });

  it('verifies what the Standard Webhooks reference library signs with the same whsec_ secret, and X-Service-Signature keyed with its text', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const headers = {
      'webhook-id': 'dlv_01',
      'webhook-timestamp': String(SIGNED_AT_SECONDS),
      'webhook-signature': new StandardWebhook(secret).sign('dlv_01', SIGNED_AT, body),
      'x-service-signature': signBody(secret, body),
    };
    const now = SIGNED_AT.getTime();
    expect(verifyWebhook(body, headers, secret, { now }).scheme).toBe('standard-webhooks');
    expect(verifyWebhook(body, headers, secret, { now, scheme: 'x-service-signature' }).scheme).toBe('x-service-signature');
    expect(outcome(body.replace('✓', '✗'), headers, secret, { now })).toBe('invalid_signature');
  });
});

describe('verifyWebhook on real deliveries from the worker', () => {
  let h: Harness;
  let worker: ReturnType<typeof startTestWorker>;
  let api: Server;
  let receiver: Server;
  let sdk: WorktrackClient;
  let hookUrl: string;
  /** The secret each receiving path verifies with. */
  const secrets = new Map<string, string>();
  const received: { path: string; body: Buffer; headers: IncomingHttpHeaders; verified: VerifiedWebhook | WebhookVerificationError }[] = [];

  const listen = async (server: Server) => {
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const close = (server: Server) => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };

  beforeAll(async () => {
    h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    worker = startTestWorker({ prefix: h.deps.config.redisPrefix });
    api = h.app.listen(0, '127.0.0.1');
    sdk = createClient({ baseUrl: await listen(api), apiKey: (await createOrg(h.db)).liveKey });

    // The receiver of the README: the raw body (express.raw), verified before anything else.
    const app = express();
    app.post('/hooks/:name', express.raw({ type: 'application/json' }), (req, res) => {
      const path = req.params.name as string;
      try {
        const verified = verifyWebhook(req.body as Buffer, req.headers, secrets.get(path) ?? 'unknown');
        received.push({ path, body: req.body as Buffer, headers: req.headers, verified });
        res.sendStatus(204);
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        received.push({ path, body: req.body as Buffer, headers: req.headers, verified: error });
        res.status(400).send(error.reason);
      }
    });
    receiver = app.listen(0, '127.0.0.1');
    hookUrl = `${await listen(receiver)}/hooks`;
  });
  afterAll(async () => {
    await worker.close();
    await Promise.all([close(api), close(receiver)]);
    await h.close();
  });

  /** Subscribes a receiving path to task.created with the secret (generated by the API when omitted), creates a task, and returns its delivery. */
  async function deliveryOfNewTask(path: string, suppliedSecret?: string) {
    const webhook = await unwrap(
      sdk.POST('/v1/webhooks', { body: { url: `${hookUrl}/${path}`, events: ['task.created'], ...(suppliedSecret && { secret: suppliedSecret }) } }),
    );
    const secret = suppliedSecret ?? (webhook as { secret?: string }).secret;
    if (!secret) throw new Error('no secret returned');
    secrets.set(path, secret);
    const projectId = (await unwrap(sdk.POST('/v1/projects', { body: { name: `Hooked ${path}` } }))).id;
    const task = await unwrap(sdk.POST('/v1/tasks', { body: { title: `Deliver to ${path}`, projectId } }));
    const delivery = await waitFor(async () => received.find((r) => r.path === path), { timeoutMs: 15_000 });
    return { secret, task, webhookId: webhook.id, delivery };
  }

  function checkBothSchemes(delivery: { body: Buffer; headers: IncomingHttpHeaders }, secret: string) {
    const timestamp = Number(delivery.headers['webhook-timestamp']);
    const tampered = Buffer.from(delivery.body.toString('utf8').replace('Deliver to', 'Delivered to'));
    for (const scheme of ['standard-webhooks', 'x-service-signature'] as const) {
      const result = verifyWebhook(delivery.body, delivery.headers, secret, { scheme });
      expect(result.scheme).toBe(scheme);
      expect(result.deliveryId).toBe(delivery.headers['webhook-id']);
      expect(outcome(tampered, delivery.headers, secret, { scheme })).toBe('invalid_signature');
      expect(outcome(delivery.body, delivery.headers, secret, { scheme, now: (timestamp + 301) * 1000 })).toBe('timestamp_too_old');
      expect(outcome(delivery.body, delivery.headers, `${secret}x`, { scheme })).toBe('invalid_signature');
    }
  }

  it('accepts a real delivery signed with a supplied secret, and refuses it tampered or stale, in both schemes', async () => {
    const { secret, task, webhookId, delivery } = await deliveryOfNewTask('supplied', 'sdk-receiver-secret-0123456789');
    if (delivery.verified instanceof Error) throw delivery.verified;
    expect(delivery.verified).toMatchObject({ scheme: 'standard-webhooks', deliveryId: expect.stringMatching(/^dlv_/) });
    const { payload } = delivery.verified;
    if (payload.event !== 'task.created') throw new Error(`unexpected ${payload.event}`);
    expect(payload.data).toEqual(task);
    expect(payload.webhookId).toBe(webhookId);
    checkBothSchemes(delivery, secret);
  });

  it('accepts a real delivery signed with the whsec_ secret the API generates, as it is returned', async () => {
    const { secret, task, delivery } = await deliveryOfNewTask('generated');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/); // docs/decisions.md#signatures-and-secrets: whsec_ + base64 of 32 random bytes
    if (delivery.verified instanceof Error) throw delivery.verified;
    expect(delivery.verified.payload.data).toEqual(task);
    checkBothSchemes(delivery, secret);
    // The Standard Webhooks reference library verifies it with the same secret, as it is.
    expect(new StandardWebhook(secret).verify(delivery.body.toString('utf8'), delivery.headers as Record<string, string>)).toEqual(delivery.verified.payload);
  });
});
