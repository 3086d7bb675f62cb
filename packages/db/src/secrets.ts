import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

/**
 * A value sealed at rest: `v1:<key id>:<base64url of IV, ciphertext and tag>`. Anything else in a
 * sealed column is a value written before sealing (plaintext), which `open` passes through until
 * `resealWebhookSecrets` seals it. Postgres reads the same pattern (`~`), so the SQL and the code
 * agree on what is sealed.
 */
export const SEALED_PATTERN = /^v1:[0-9a-f]{8}:[A-Za-z0-9_-]{38,}$/;

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Values opened lately, kept so that a subscription's deliveries do not each pay for a decryption. */
const OPENED_CACHE_SIZE = 10_000;

interface SealingKey {
  /** 8 hex characters naming the key in what it sealed; an HMAC of it, so it reveals nothing of it. */
  id: string;
  /** The AES-256-GCM key, derived from the setting so that it keys nothing else directly; a KeyObject, 3x cheaper per use than bytes. */
  aes: KeyObject;
}

function sealingKey(secret: Buffer): SealingKey {
  if (secret.length !== 32) throw new Error('A secrets key is 32 bytes');
  return {
    id: createHmac('sha256', secret).update('worktrack secrets key id').digest('hex').slice(0, 8),
    aes: createSecretKey(Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'worktrack secrets at rest v1', 32))),
  };
}

/** A sealed value that no configured key opens: sealed under another key, or altered, or moved to another row. */
export class UnreadableSecretError extends Error {
  override name = 'UnreadableSecretError';
}

/**
 * Seals secrets at rest with AES-256-GCM (docs/decisions.md#http-behaviour-and-secrets-at-rest). The first key seals; every key opens
 * what it sealed (after a rotation, SECRETS_KEY_PREVIOUS). `context` is authenticated with the
 * value: a value sealed for one row does not open for another, so copying a ciphertext into a row
 * one can read through the API reveals nothing.
 */
export class SecretBox {
  private readonly keys: SealingKey[];
  private readonly opened = new Map<string, string>();

  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('SecretBox needs a key');
    this.keys = keys.map(sealingKey);
  }

  /** The id of the key that seals: values naming another one are due a reseal. */
  get currentKeyId(): string {
    return this.keys[0]!.id;
  }

  /** Ids of the keys that still open values sealed under them but no longer seal. */
  get olderKeyIds(): string[] {
    return this.keys.slice(1).map((key) => key.id);
  }

  seal(plaintext: string, context: string): string {
    const key = this.keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.aes, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1:${key.id}:${Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The plaintext of a sealed value; a value that is not sealed (written before sealing) as it is. */
  open(stored: string, context: string): string {
    if (!SEALED_PATTERN.test(stored)) return stored;
    const cacheKey = `${context}\n${stored}`;
    const cached = this.opened.get(cacheKey);
    if (cached !== undefined) return cached;
    const plaintext = this.decrypt(stored, context);
    if (this.opened.size >= OPENED_CACHE_SIZE) this.opened.delete(this.opened.keys().next().value!);
    this.opened.set(cacheKey, plaintext);
    return plaintext;
  }

  private decrypt(stored: string, context: string): string {
    const [, keyId, payload] = stored.split(':') as [string, string, string];
    const bytes = Buffer.from(payload, 'base64url');
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const ciphertext = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
    // The key id picks the key; should two keys share an id, each is tried, the current one first.
    const candidates = this.keys.filter((key) => key.id === keyId);
    if (candidates.length === 0)
      throw new UnreadableSecretError(`A secret is sealed under key ${keyId}, which is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS`);
    for (const key of candidates) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.aes, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        // The next candidate, if any.
      }
    }
    throw new UnreadableSecretError(`A secret sealed under key ${keyId} does not open: altered, or copied from another row`);
  }
}

/** The context a subscription's secrets are sealed with: its id, so they open only in its row. */
export const webhookSecretContext = (webhookId: string): string => `Webhook ${webhookId}`;

/** The context a subscription's own delivery headers are sealed with: not its secrets', so neither opens as the other. */
export const webhookHeadersContext = (webhookId: string): string => `Webhook ${webhookId} headers`;
