import { Webhook } from 'standardwebhooks';
import { buildDeliveryHeaders, signBody, standardWebhookSignature, verifyBodySignature } from '../src/index';
import { verify as octokitVerify } from '@octokit/webhooks-methods';

const secret = 'whsec_test-secret-ü';
const body = JSON.stringify({ event: 'task.created', deliveryId: 'dlv_01', data: { title: 'Ünïcødé ✓' } });

function standardVerifier(key: string): Webhook {
  return new Webhook(`whsec_${Buffer.from(key).toString('base64')}`);
}

describe('signBody', () => {
  it('produces sha256=<hex> that @octokit/webhooks-methods verifies', async () => {
    const signature = signBody(secret, body);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    await expect(octokitVerify(secret, body, signature)).resolves.toBe(true);
    await expect(octokitVerify('another secret', body, signature)).resolves.toBe(false);
    await expect(octokitVerify(secret, `${body} `, signature)).resolves.toBe(false);
  });

  it('is checked in constant time by verifyBodySignature', () => {
    const signature = signBody(secret, body);
    expect(verifyBodySignature(secret, body, signature)).toBe(true);
    expect(verifyBodySignature(secret, body, signature.slice(0, -1))).toBe(false);
    expect(verifyBodySignature('other', body, signature)).toBe(false);
    expect(verifyBodySignature(secret, body, undefined)).toBe(false);
  });
});

describe('standardWebhookSignature', () => {
  it('matches the Standard Webhooks reference signer', () => {
    const timestamp = new Date('2026-11-21T10:00:00.000Z');
    const seconds = Math.floor(timestamp.getTime() / 1000);
    expect(standardWebhookSignature(secret, 'dlv_01', seconds, body)).toBe(standardVerifier(secret).sign('dlv_01', timestamp, body));
  });
});

describe('buildDeliveryHeaders', () => {
  it('sets every delivery header', () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    const headers = buildDeliveryHeaders({ secret, deliveryId: 'dlv_01', eventType: 'task.created', body, now });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'Worktrack-Webhooks/1.0',
      'X-Service-Signature': signBody(secret, body),
      'X-Service-Event': 'task.created',
      'X-Service-Delivery': 'dlv_01',
      'webhook-id': 'dlv_01',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': standardWebhookSignature(secret, 'dlv_01', Math.floor(now.getTime() / 1000), body),
    });
  });

  it('verifies with the standardwebhooks library', () => {
    const headers = buildDeliveryHeaders({ secret, deliveryId: 'dlv_02', eventType: 'task.updated', body });
    expect(standardVerifier(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => standardVerifier('wrong secret').verify(body, headers)).toThrow();
    expect(() => standardVerifier(secret).verify(body.replace('✓', 'x'), headers)).toThrow();
  });

  it('is rejected by standardwebhooks when the timestamp is stale (replay)', () => {
    const headers = buildDeliveryHeaders({
      secret,
      deliveryId: 'dlv_03',
      eventType: 'task.updated',
      body,
      now: new Date(Date.now() - 10 * 60 * 1000),
    });
    expect(() => standardVerifier(secret).verify(body, headers)).toThrow(/timestamp/i);
  });

  it('after a rotation, signs webhook-signature with both secrets', async () => {
    const previousSecret = 'old-secret';
    const headers = buildDeliveryHeaders({ secret, previousSecret, deliveryId: 'dlv_04', eventType: 'task.created', body });

    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((signature) => signature.startsWith('v1,'))).toBe(true);

    expect(standardVerifier(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(standardVerifier(previousSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => standardVerifier('neither').verify(body, headers)).toThrow();
    // X-Service-Signature carries one value: the current secret's.
    await expect(octokitVerify(secret, body, headers['X-Service-Signature'])).resolves.toBe(true);
  });

  it('adds no second signature when the previous secret is absent or the same', () => {
    for (const previousSecret of [undefined, null, secret]) {
      const headers = buildDeliveryHeaders({ secret, previousSecret, deliveryId: 'd', eventType: 'e', body });
      expect(headers['webhook-signature'].split(' ')).toHaveLength(1);
    }
  });
});
