import type { Mode } from '../generated/prisma/enums';
import type { Conn } from './connection';

export interface DisableNotice {
  webhookId: string;
  organizationId: string;
  organizationName: string;
  mode: Mode;
  url: string;
  /** The last attempt's answer: its status and error, or null when it has none. */
  lastAttempt: { responseStatus: number | null; error: string | null } | null;
}

/** The notices a worker mails when a subscription's last retries disabled it, across tenants. */
export function disableNotices(conn: Conn) {
  return {
    /**
     * Claims the notice of a subscription's disable after failed deliveries, once per disable: of the
     * workers that saw its last retry fail, one gets it; a re-enable and a later disable make another.
     */
    claim: async (webhookId: string): Promise<DisableNotice | null> => {
      const [claimed] = await conn.$queryRaw<{ id: string; organizationId: string; organizationName: string; mode: Mode; url: string }[]>`
        UPDATE "Webhook" w SET "disabledNoticeAt" = w."disabledAt"
        FROM "Organization" o
        WHERE w.id = ${webhookId} AND o.id = w."organizationId" AND w.status = 'disabled' AND w."disabledReason" = 'delivery_failures'
          AND w."disabledNoticeAt" IS DISTINCT FROM w."disabledAt"
        RETURNING w.id, w."organizationId", o.name AS "organizationName", w.mode, w.url`;
      if (!claimed) return null;
      // The delivery attempted last, by the (webhookId, lastAttemptAt) index, and its last attempt.
      const delivery = await conn.delivery.findFirst({
        where: { webhookId, lastAttemptAt: { not: null } },
        orderBy: { lastAttemptAt: 'desc' },
        select: { attempts: { orderBy: { attemptNumber: 'desc' }, take: 1, select: { responseStatus: true, error: true } } },
      });
      return { ...claimed, webhookId: claimed.id, lastAttempt: delivery?.attempts[0] ?? null };
    },

    /** The addresses of an organization's admins: who is told. */
    adminEmails: async (organizationId: string): Promise<string[]> => {
      const rows = await conn.membership.findMany({ where: { organizationId, role: 'admin' }, select: { user: { select: { email: true } } } });
      return rows.map((row) => row.user.email);
    },
  };
}
