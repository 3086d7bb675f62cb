import { randomBytes } from 'node:crypto';
import { createDatabase, newId, resealWebhookSecrets, SecretBox, UnreadableSecretError, webhookSecretContext, type Database } from '../src/index';
import { SEALED_PATTERN } from '../src/secrets';
import { createOrg, type TestOrg } from '@test-support/api-harness';

const [keyA, keyB, keyC] = [randomBytes(32), randomBytes(32), randomBytes(32)];

describe('SecretBox', () => {
  const box = new SecretBox([keyA]);

  it('seals with AES-256-GCM into a versioned value that holds nothing of the secret, fresh every time', () => {
    const secret = 'whsec_the-secret-itself';
    const sealed = box.seal(secret, 'Webhook whk_1');
    expect(sealed).toMatch(SEALED_PATTERN);
    expect(sealed.startsWith(`v1:${box.currentKeyId}:`)).toBe(true);
    expect(sealed).not.toContain('the-secret-itself');
    expect(Buffer.from(sealed.split(':')[2]!, 'base64url').toString('latin1')).not.toContain('the-secret-itself');
    expect(box.seal(secret, 'Webhook whk_1')).not.toBe(sealed);
    expect(box.open(sealed, 'Webhook whk_1')).toBe(secret);
  });

  it('opens a value only in the context it was sealed for, and never once altered', () => {
    const sealed = box.seal('secret', 'Webhook whk_1');
    expect(() => box.open(sealed, 'Webhook whk_2')).toThrow(UnreadableSecretError);
    const bytes = Buffer.from(sealed.split(':')[2]!, 'base64url');
    bytes[14]! ^= 1;
    expect(() => box.open(`v1:${box.currentKeyId}:${bytes.toString('base64url')}`, 'Webhook whk_1')).toThrow(UnreadableSecretError);
  });

  it('passes a value written before sealing through as it is', () => {
    for (const plaintext of ['secret_known_secret', 'v1:not-sealed', `v1:${box.currentKeyId}:short`])
      expect(box.open(plaintext, 'Webhook whk_1')).toBe(plaintext);
  });

  it('after a key rotation, seals under the new key and still opens what the previous one sealed', () => {
    const sealedUnderA = box.seal('secret', 'ctx');
    const rotated = new SecretBox([keyB, keyA]);
    expect(rotated.open(sealedUnderA, 'ctx')).toBe('secret');
    expect(rotated.seal('secret', 'ctx').startsWith(`v1:${rotated.currentKeyId}:`)).toBe(true);
    expect(rotated.olderKeyIds).toEqual([box.currentKeyId]);
    expect(() => new SecretBox([keyB]).open(sealedUnderA, 'ctx')).toThrow(/neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS/);
  });
});

describe('resealWebhookSecrets', () => {
  let database: Database;
  let org: TestOrg;

  beforeAll(async () => {
    database = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
    org = await createOrg(database.db);
  });
  afterAll(() => database.close());

  async function webhook(secret: string | ((id: string) => string), previousSecret: string | ((id: string) => string) | null = null) {
    const id = newId('webhook');
    const value = (v: string | ((id: string) => string)) => (typeof v === 'function' ? v(id) : v);
    await database.db.webhook.create({
      data: {
        id,
        organizationId: org.organization.id,
        mode: 'live',
        url: 'https://example.com/hook',
        events: ['*'],
        secret: value(secret),
        previousSecret: previousSecret === null ? null : value(previousSecret),
      },
    });
    return id;
  }
  const stored = (id: string) => database.db.webhook.findUniqueOrThrow({ where: { id } });

  it('seals plaintext values and reseals those under the previous key, each once, leaving unreadable ones as they are', async () => {
    const under = (key: Buffer, secret: string) => (id: string) => new SecretBox([key]).seal(secret, webhookSecretContext(id));
    const plain = await webhook('plain-current', 'plain-previous');
    const old = await webhook(under(keyA, 'old-current'), under(keyA, 'old-previous'));
    const lost = await webhook(under(keyC, 'lost'));
    const lostBefore = (await stored(lost)).secret;
    const box = new SecretBox([keyB, keyA]);

    const report = await resealWebhookSecrets(database.pool, box);
    expect(report).toEqual({ sealed: 2, resealed: 2, unreadable: 1, remaining: 1 });
    for (const [id, secret, previous] of [
      [plain, 'plain-current', 'plain-previous'],
      [old, 'old-current', 'old-previous'],
    ] as const) {
      const row = await stored(id);
      for (const value of [row.secret, row.previousSecret!]) expect(value.startsWith(`v1:${box.currentKeyId}:`)).toBe(true);
      expect(JSON.stringify(row)).not.toMatch(/plain-|old-/);
      // Sealed under the new key alone: the previous key is no longer needed for them.
      const newKeyOnly = new SecretBox([keyB]);
      expect([newKeyOnly.open(row.secret, webhookSecretContext(id)), newKeyOnly.open(row.previousSecret!, webhookSecretContext(id))]).toEqual([
        secret,
        previous,
      ]);
    }
    expect((await stored(lost)).secret).toBe(lostBefore);

    expect(await resealWebhookSecrets(database.pool, box)).toEqual({ sealed: 0, resealed: 0, unreadable: 1, remaining: 1 });
    await database.db.webhook.delete({ where: { id: lost } });
    expect(await resealWebhookSecrets(database.pool, box)).toEqual({ sealed: 0, resealed: 0, unreadable: 0, remaining: 0 });
  });
});
