import { webhookDisabledMail } from '@worktrack/mail';
import type { WorkerDeps } from '../deps';

/**
 * Mails each admin of its organization that a subscription was disabled after failed deliveries,
 * once per disable (docs/decisions.md#email-and-invitations): what failed, the last
 * answer, a link to it. Best effort: the dashboard's banner says it too, until it is re-enabled.
 */
export async function announceDisabled(deps: Pick<WorkerDeps, 'data' | 'mailer' | 'publicBaseUrl'>, webhookId: string): Promise<void> {
  const notice = await deps.data.disableNotices.claim(webhookId);
  if (!notice) return;
  const last = notice.lastAttempt;
  const lastResponse = !last ? 'none recorded' : last.responseStatus !== null ? `HTTP ${last.responseStatus}` : (last.error ?? 'no response');
  const url = `${deps.publicBaseUrl}/dashboard/webhooks/${notice.webhookId}`;
  const admins = await deps.data.disableNotices.adminEmails(notice.organizationId);
  await Promise.all(
    admins.map((to) => deps.mailer.send(webhookDisabledMail({ to, organizationName: notice.organizationName, webhookUrl: notice.url, lastResponse, url }))),
  );
}
