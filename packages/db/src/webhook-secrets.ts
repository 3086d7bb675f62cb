import { queryOnPool, transactionOnPool, type SqlPool } from './client';
import { Prisma } from './generated/prisma/client';
import { SEALED_PATTERN, webhookHeadersContext, webhookSecretContext, type SecretBox } from './secrets';

export interface ResealReport {
  /** Values found in plaintext (written before sealing) and sealed now. */
  sealed: number;
  /** Values sealed under an older key (SECRETS_KEY_PREVIOUS) and sealed again under SECRETS_KEY. */
  resealed: number;
  /** Subscriptions with a value no configured key opens: it stays as it is, and deliveries to them fail. */
  unreadable: number;
  /**
   * Subscriptions with a value still not under SECRETS_KEY when the pass ended (unreadable ones
   * included, or one a concurrent write held): 0 means SECRETS_KEY_PREVIOUS opens nothing any more.
   */
  remaining: number;
}

interface Row {
  id: string;
  secret: string;
  previousSecret: string | null;
  headersSealed: string | null;
}

const BATCH = 500;

/**
 * Seals every subscription secret still in plaintext, and seals again under SECRETS_KEY those
 * (and the subscriptions' own delivery headers) sealed under an older key, so that after a rotation the older key can be dropped. Each batch
 * locks its rows and skips rows others hold, so concurrent passes (two API replicas starting)
 * share the work; a write racing it seals its own values anyway. Idempotent: a second pass finds
 * nothing to do.
 */
export async function resealWebhookSecrets(pool: SqlPool, box: SecretBox): Promise<ResealReport> {
  const report: ResealReport = { sealed: 0, resealed: 0, unreadable: 0, remaining: 0 };
  const older = box.olderKeyIds;
  const due = (column: string) => {
    const value = Prisma.raw(`"${column}"`);
    return Prisma.sql`(${value} IS NOT NULL AND (${value} !~ ${SEALED_PATTERN.source} OR split_part(${value}, ':', 2) = ANY (${older}::text[])))`;
  };
  /** The value sealed under the current key, and what that took; throws when no key opens it. */
  const reseal = (value: string | null, context: string): { value: string | null; did: 'sealed' | 'resealed' | null } => {
    if (value === null) return { value, did: null };
    const sealed = SEALED_PATTERN.test(value);
    if (sealed && value.startsWith(`v1:${box.currentKeyId}:`)) return { value, did: null };
    return { value: box.seal(box.open(value, context), context), did: sealed ? 'resealed' : 'sealed' };
  };

  // Keyset over ids, so that each row is visited once even when one of its values cannot be opened.
  let after = '';
  for (;;) {
    const done = { sealed: 0, resealed: 0, unreadable: 0 };
    const rows = await transactionOnPool(pool, async (connection) => {
      const rows = await queryOnPool<Row>(
        connection,
        Prisma.sql`
          SELECT id, secret, "previousSecret", "headersSealed" FROM "Webhook"
          WHERE id > ${after} AND (${due('secret')} OR ${due('previousSecret')} OR ${due('headersSealed')})
          ORDER BY id LIMIT ${BATCH}
          FOR UPDATE SKIP LOCKED`,
      );
      const updates: Row[] = [];
      for (const row of rows) {
        const context = webhookSecretContext(row.id);
        try {
          const secret = reseal(row.secret, context);
          const previousSecret = reseal(row.previousSecret, context);
          const headersSealed = reseal(row.headersSealed, webhookHeadersContext(row.id));
          updates.push({ id: row.id, secret: secret.value!, previousSecret: previousSecret.value, headersSealed: headersSealed.value });
          for (const { did } of [secret, previousSecret, headersSealed]) if (did) done[did] += 1;
        } catch {
          done.unreadable += 1;
        }
      }
      if (updates.length > 0) {
        await queryOnPool(
          connection,
          Prisma.sql`
            UPDATE "Webhook" AS w SET secret = v.secret, "previousSecret" = v."previousSecret", "headersSealed" = v."headersSealed"
            FROM jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) AS v(id text, secret text, "previousSecret" text, "headersSealed" text)
            WHERE w.id = v.id`,
        );
      }
      return rows;
    });
    for (const key of ['sealed', 'resealed', 'unreadable'] as const) report[key] += done[key];
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.id;
  }

  const known = [box.currentKeyId, ...older];
  const unknownKey = (column: string) => {
    const value = Prisma.raw(`"${column}"`);
    return Prisma.sql`(${value} ~ ${SEALED_PATTERN.source} AND split_part(${value}, ':', 2) <> ALL (${known}::text[]))`;
  };
  const left = (
    await queryOnPool<{ unknown: number; remaining: number }>(
      pool,
      Prisma.sql`
      SELECT count(*) FILTER (WHERE ${unknownKey('secret')} OR ${unknownKey('previousSecret')} OR ${unknownKey('headersSealed')})::int AS unknown,
        count(*) FILTER (WHERE ${due('secret')} OR ${due('previousSecret')} OR ${due('headersSealed')}
          OR ${unknownKey('secret')} OR ${unknownKey('previousSecret')} OR ${unknownKey('headersSealed')})::int AS remaining
        FROM "Webhook"`,
    )
  )[0]!;
  report.unreadable += left.unknown;
  report.remaining = left.remaining;
  return report;
}
