import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { RedisClient } from '@worktrack/queue';
import { ApiError, errorBody, invalid, toApiError } from './errors';

const TTL_SECONDS = 24 * 3600;

/** What a route answered: a status and a JSON body, or no body (204). */
export interface Outcome {
  status: number;
  body: unknown;
}

/**
 * In Redis, a record holds only an HMAC of the request and the outcome sealed with AES-256-GCM,
 * both keyed from the API key itself: without that key, nothing in it (new keys, invitation
 * tokens, generated secrets) is readable, and requests cannot be told apart.
 */
type StoredRecord = { state: 'pending'; fingerprint: string } | { state: 'done'; fingerprint: string; sealed: string };

export interface IdempotentRequest {
  /** The Idempotency-Key header, if any. */
  idempotencyKey: string | undefined;
  /** The bearer key that authenticated the request: the record belongs to it and is sealed with it. */
  apiKey: string;
  apiKeyId: string;
  /** What identifies the request: method, URL and validated body. */
  signature: string;
}

function keysFor(apiKey: string) {
  const derived = Buffer.from(hkdfSync('sha256', apiKey, 'worktrack', 'idempotency records', 64));
  return { sealing: derived.subarray(0, 32), fingerprinting: derived.subarray(32) };
}

function seal(key: Buffer, outcome: Outcome): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(outcome), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

function unseal(key: Buffer, sealed: string): Outcome {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')) as Outcome;
}

/**
 * docs/decisions.md#idempotency: a POST repeated with the same Idempotency-Key and body within 24 hours gets
 * the first outcome again and does no work; the same key with another body is a conflict.
 * Records belong to the API key that made them. Callers run authentication, the permission
 * check and validation first, so a replay never answers a request that would be refused.
 * A 5xx releases the key so that the client may retry; while Redis is down, requests that
 * carry a key answer 503 rather than risk doing the work twice.
 */
export class IdempotencyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async run(request: IdempotentRequest, execute: () => Promise<Outcome>): Promise<Outcome & { replayed: boolean }> {
    const { idempotencyKey } = request;
    if (idempotencyKey === undefined) return { ...(await execute()), replayed: false };
    if (idempotencyKey.length < 1 || idempotencyKey.length > 255) {
      throw invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');
    }

    const keys = keysFor(request.apiKey);
    const redisKey = `${this.prefix}:idempotency:${request.apiKeyId}:${createHash('sha256').update(idempotencyKey).digest('hex')}`;
    const fingerprint = createHmac('sha256', keys.fingerprinting).update(request.signature).digest('base64');

    const pending: StoredRecord = { state: 'pending', fingerprint };
    const claimed = await this.redis.set(redisKey, JSON.stringify(pending), 'EX', TTL_SECONDS, 'NX');
    if (!claimed) return { ...this.replay(JSON.parse((await this.redis.get(redisKey)) ?? 'null'), fingerprint, keys.sealing), replayed: true };

    let outcome: Outcome;
    try {
      outcome = await execute();
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError && apiError.status < 500) await this.settle(redisKey, fingerprint, keys.sealing, { status: apiError.status, body: errorBody(apiError) });
      else await this.redis.del(redisKey).catch(() => undefined);
      throw err;
    }
    // Stored before the response leaves, so a client retrying the moment it has the answer finds it.
    await this.settle(redisKey, fingerprint, keys.sealing, outcome);
    return { ...outcome, replayed: false };
  }

  private replay(stored: StoredRecord | null, fingerprint: string, sealingKey: Buffer): Outcome {
    if (!stored) throw new ApiError('conflict', 'Idempotency-Key expired while in use; retry the request', 'Idempotency-Key');
    if (stored.fingerprint !== fingerprint) {
      throw new ApiError('conflict', 'Idempotency-Key was already used with a different request', 'Idempotency-Key');
    }
    if (stored.state === 'pending') throw new ApiError('conflict', 'A request with this Idempotency-Key is still in progress', 'Idempotency-Key');
    return unseal(sealingKey, stored.sealed);
  }

  private async settle(redisKey: string, fingerprint: string, sealingKey: Buffer, outcome: Outcome): Promise<void> {
    const record: StoredRecord = { state: 'done', fingerprint, sealed: seal(sealingKey, outcome) };
    // If the outcome cannot be stored, the key is released: a retry then does the work again,
    // which is safer than leaving it pending forever.
    await this.redis.set(redisKey, JSON.stringify(record), 'EX', TTL_SECONDS).catch(() => this.redis.del(redisKey).catch(() => undefined));
  }
}
