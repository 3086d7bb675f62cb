import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Service-Signature` value: `sha256=<hex HMAC-SHA256 of the raw body>`,
 * keyed with the secret's UTF-8 bytes (docs/decisions.md#signatures-and-secrets).
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

const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * The key bytes of a `whsec_` + base64 secret, as the Standard Webhooks libraries read it, or null
 * for any other secret. docs/decisions.md#signatures-and-secrets: 24 to 64 bytes.
 */
export function standardSecretKey(secret: string): Buffer | null {
  const base64 = STANDARD_SECRET.exec(secret)?.[1];
  if (base64 === undefined) return null;
  const key = Buffer.from(base64, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : null;
}

/**
 * One Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. A
 * `whsec_` + base64 secret is keyed with its decoded bytes, so `new Webhook(secret)` verifies it as
 * it is; any other secret with its UTF-8 bytes (receivers pass `'whsec_' + base64(secret)`).
 */
export function standardWebhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', standardSecretKey(secret) ?? secret)
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${digest}`;
}
