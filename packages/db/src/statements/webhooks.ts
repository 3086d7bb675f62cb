import type { Tx } from '../client';

/**
 * Stores a subscription's compiled filter (null: none) beside the filter itself, in the caller's
 * transaction. Prisma has no type for `jsonpath`, hence this statement; Postgres parses the text
 * once, here, and `"Webhook_wants"` evaluates the parsed form for every event.
 */
export async function setWebhookFilterPath(tx: Tx, webhookId: string, jsonpath: string | null): Promise<void> {
  await tx.$executeRaw`UPDATE "Webhook" SET "filterPath" = ${jsonpath}::jsonpath WHERE id = ${webhookId}`;
}
