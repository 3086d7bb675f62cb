import type { Db } from '../client';
import type { Mode } from '../generated/prisma/enums';

export interface DisableNotice {
  webhookId: string;
  organizationId: string;
  organizationName: string;
  mode: Mode;
  url: string;
  /** The last attempt's answer: its status and error, or null when it has none. */
  lastAttempt: { responseStatus: number | null; error: string | null } | null;
}

/**
 * Claims the notice of a subscription's disable after failed deliveries, once per disable: of the
 * workers that saw its last retry fail, one gets it; a re-enable and a later disable make another.
 */
export async function claimDisableNotice(db: Db, webhookId: string): Promise<DisableNotice | null> {
  const [claimed] = await db.$queryRaw<{ id: string; organizationId: string; organizationName: string; mode: Mode; url: string }[]>`
    UPDATE "Webhook" w SET "disabledNoticeAt" = w."disabledAt"
    FROM "Organization" o
    WHERE w.id = ${webhookId} AND o.id = w."organizationId" AND w.status = 'disabled' AND w."disabledReason" = 'delivery_failures'
      AND w."disabledNoticeAt" IS DISTINCT FROM w."disabledAt"
    RETURNING w.id, w."organizationId", o.name AS "organizationName", w.mode, w.url`;
  if (!claimed) return null;
  // The delivery attempted last, by the (webhookId, lastAttemptAt) index, and its last attempt.
  const delivery = await db.delivery.findFirst({
    where: { webhookId, lastAttemptAt: { not: null } },
    orderBy: { lastAttemptAt: 'desc' },
    select: { attempts: { orderBy: { attemptNumber: 'desc' }, take: 1, select: { responseStatus: true, error: true } } },
  });
  return { ...claimed, webhookId: claimed.id, lastAttempt: delivery?.attempts[0] ?? null };
}

export interface DisabledWebhook {
  id: string;
  url: string;
  description: string | null;
  disabledAt: Date | null;
}

/** A tenant's subscriptions its last retries disabled, until re-enabled or deleted: the dashboard's banner on every page. */
export function disabledWebhooks(db: Db, scope: { organizationId: string; mode: Mode }): Promise<DisabledWebhook[]> {
  return db.webhook.findMany({
    where: { organizationId: scope.organizationId, mode: scope.mode, status: 'disabled', disabledReason: 'delivery_failures' },
    select: { id: true, url: true, description: true, disabledAt: true },
    orderBy: { disabledAt: 'desc' },
    take: 5,
  });
}
