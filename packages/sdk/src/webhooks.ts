/**
 * `@worktrack/sdk/webhooks`: proves that a delivery comes from worktrack. Apart from the client
 * because it uses `node:crypto` (Node, Bun, Deno, and edge runtimes with Node compatibility have
 * it); the client's entry stays browser-safe.
 */
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent, WebhookEventType } from './types.js';

export type { WebhookEvent, WebhookEventType };

/**
 * - `standard-webhooks`: `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one or
 *   more separated by spaces (two during the 24 h after a secret rotation), with `webhook-id` and
 *   `webhook-timestamp`. The timestamp is signed, so a replayed old delivery is refused.
 * - `x-service-signature`: `X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body>`. It signs
 *   no timestamp; a `webhook-timestamp` beside it is still checked against the tolerance.
 */
export type SignatureScheme = 'standard-webhooks' | 'x-service-signature';

export type VerificationFailure =
  /** No signature header of the scheme(s) asked for. */
  | 'missing_signature'
  /** `webhook-signature` without `webhook-id` or `webhook-timestamp`. */
  | 'missing_headers'
  /** `webhook-timestamp` is not Unix seconds. */
  | 'invalid_timestamp'
  /** No signature matches the body and the secret. */
  | 'invalid_signature'
  /** Authentic, but signed longer ago than `toleranceSeconds` (a replay, or a receiver clock far off). */
  | 'timestamp_too_old'
  /** Authentic, but dated further ahead than `toleranceSeconds`. */
  | 'timestamp_too_new'
  /** Authentic, but the body is not JSON. */
  | 'invalid_payload';

/** A delivery that failed verification: answer it with 400 (or 401) and do nothing with it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: VerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Require one scheme; `any` (the default) checks `webhook-signature` when present, else `X-Service-Signature`. */
  scheme?: SignatureScheme | 'any';
  /** The receiver's clock (default: now); for tests. */
  now?: Date | number;
}

export interface VerifiedWebhook {
  scheme: SignatureScheme;
  /** The delivery's body, parsed; narrow it on `payload.event`. */
  payload: WebhookEvent;
  /** `webhook-id` / `X-Service-Delivery`: deduplicate on it (retries and redeliveries keep it). */
  deliveryId: string | null;
  /** When this attempt was signed (`webhook-timestamp`), if sent. */
  timestamp: Date | null;
}

/** Node's `req.headers`, a fetch `Headers`, or any record of header names (any case) to values. */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** The body exactly as received: a string, a Buffer or other bytes. Never a parsed and re-serialized object. */
export type RawBody = string | Uint8Array | ArrayBuffer;

const DEFAULT_TOLERANCE_SECONDS = 300;
const STANDARD_SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Verifies a delivery with the subscription's secret, exactly as the API holds it (the `whsec_...`
 * it generated, or the one you supplied), and returns the parsed event. Throws
 * `WebhookVerificationError` (with a `reason`) for anything not signed with that secret, or signed
 * outside the tolerance; throws `TypeError` when the body is not raw.
 *
 * Both schemes are checked in constant time. For `webhook-signature` the key is the secret's
 * base64-decoded bytes when it is `whsec_` + base64 of 24 to 64 bytes, otherwise its UTF-8 bytes
 * (docs/decisions.md#signatures-and-secrets); `X-Service-Signature` is always keyed with the secret's UTF-8 bytes.
 */
export function verifyWebhook(rawBody: RawBody, headers: WebhookHeaders, secret: string, options: VerifyWebhookOptions = {}): VerifiedWebhook {
  const body = bytesOf(rawBody);
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('verifyWebhook needs the subscription secret');
  const header = headerReader(headers);
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor(Number(options.now ?? Date.now()) / 1000);
  const scheme = options.scheme ?? 'any';

  const standardSignature = header('webhook-signature');
  const useStandard = scheme === 'standard-webhooks' || (scheme === 'any' && standardSignature !== null);

  let verified: Omit<VerifiedWebhook, 'payload'>;
  if (useStandard) {
    const id = header('webhook-id');
    const timestampHeader = header('webhook-timestamp');
    if (standardSignature === null) throw new WebhookVerificationError('missing_signature', 'No webhook-signature header');
    if (id === null || timestampHeader === null)
      throw new WebhookVerificationError('missing_headers', 'webhook-signature needs webhook-id and webhook-timestamp');
    const timestamp = parseTimestamp(timestampHeader);
    const expected = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestampHeader}.`, 'utf8').update(body).digest('base64');
    const candidates = standardSignature.split(' ').flatMap((entry) => {
      const comma = entry.indexOf(',');
      return comma > 0 && entry.slice(0, comma) === 'v1' ? [entry.slice(comma + 1)] : [];
    });
    // Every candidate is compared, so the time taken does not tell which one matched.
    const matched = candidates.reduce((found, candidate) => safeEqual(candidate, expected) || found, false);
    if (!matched) throw new WebhookVerificationError('invalid_signature', 'No webhook-signature matches this body and secret');
    checkTolerance(timestamp, nowSeconds, toleranceSeconds);
    verified = { scheme: 'standard-webhooks', deliveryId: id, timestamp: new Date(timestamp * 1000) };
  } else {
    const signature = header('x-service-signature');
    if (signature === null) {
      throw new WebhookVerificationError(
        'missing_signature',
        scheme === 'any' ? 'Neither webhook-signature nor X-Service-Signature is present' : 'No X-Service-Signature header',
      );
    }
    const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    if (!safeEqual(signature.trim(), expected))
      throw new WebhookVerificationError('invalid_signature', 'X-Service-Signature does not match this body and secret');
    const timestampHeader = header('webhook-timestamp');
    const timestamp = timestampHeader === null ? null : parseTimestamp(timestampHeader);
    if (timestamp !== null) checkTolerance(timestamp, nowSeconds, toleranceSeconds);
    verified = {
      scheme: 'x-service-signature',
      deliveryId: header('x-service-delivery') ?? header('webhook-id'),
      timestamp: timestamp === null ? null : new Date(timestamp * 1000),
    };
  }

  let payload: WebhookEvent;
  try {
    payload = JSON.parse(Buffer.from(body).toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not JSON');
  }
  return { ...verified, payload };
}

/** docs/decisions.md#signatures-and-secrets: `whsec_` + base64 of 24-64 bytes is keyed with those bytes; any other secret with its UTF-8 bytes. */
export function standardWebhooksKey(secret: string): Uint8Array {
  if (secret.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
    if (encoded.length > 0 && BASE64.test(encoded)) {
      const bytes = Buffer.from(encoded, 'base64');
      if (bytes.length >= 24 && bytes.length <= 64) return bytes;
    }
  }
  return Buffer.from(secret, 'utf8');
}

function bytesOf(rawBody: RawBody): Uint8Array {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  throw new TypeError(
    'verifyWebhook needs the raw body as received (a string or bytes), not a parsed object: with Express, read it with express.raw({ type: "application/json" })',
  );
}

function headerReader(headers: WebhookHeaders): (name: string) => string | null {
  if (typeof headers.get === 'function') {
    const fetchHeaders = headers as { get(name: string): string | null };
    return (name) => fetchHeaders.get(name);
  }
  const byName = new Map<string, string>();
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) byName.set(name.toLowerCase(), Array.isArray(value) ? value.join(' ') : value);
  }
  return (name) => byName.get(name) ?? null;
}

function parseTimestamp(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not Unix seconds');
  return Number(value);
}

function checkTolerance(timestamp: number, nowSeconds: number, toleranceSeconds: number): void {
  if (nowSeconds - timestamp > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_too_old', `Signed ${nowSeconds - timestamp} s ago, more than ${toleranceSeconds} s`);
  }
  if (timestamp - nowSeconds > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_too_new', `Dated ${timestamp - nowSeconds} s ahead, more than ${toleranceSeconds} s`);
  }
}

function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
