import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Service-Signature` value: `sha256=<hex HMAC-SHA256 of the raw body>`,
 * keyed with the secret's UTF-8 bytes (SPEC: Webhook signatures).
 */
export function signBody(secret: string, body: string): string {
  const digest = createHmac('sha256', secret).update(body, 'utf8').digest('hex');
  return `sha256=${digest}`;
}

/**
 * Constant-time check of an `X-Service-Signature` header against the raw body,
 * as a receiver should do it. Returns false for a missing or malformed header.
 */
export function verifyBodySignature(secret: string, body: string, signature: string | undefined): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(signBody(secret, body), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * One Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 * keyed with the secret's UTF-8 bytes. A receiver verifies it with
 * `new Webhook('whsec_' + Buffer.from(secret).toString('base64'))`.
 */
export function standardWebhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret)
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${digest}`;
}
