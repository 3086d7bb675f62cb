import { randomBytes } from 'node:crypto';
import { scoped, type Plan, type Scope, type Tx, type Webhook } from '@worktrack/db';
import { checkWebhookUrl } from '@worktrack/webhooks';
import { ApiError, invalid, notFound } from '../../http/errors';

/** SPEC Limits: subscriptions per organization; Enterprise has no limit. */
const PLAN_SUBSCRIPTIONS: Record<Plan, number> = { free: 2, pro: 50, enterprise: Number.POSITIVE_INFINITY };

export async function assertDeliverableUrl(url: string, allowedHosts: string[]): Promise<void> {
  const check = await checkWebhookUrl(url, { allowedHosts });
  if (!check.ok) throw invalid('url', check.message);
}

/** Serializes creations per organization so two concurrent requests cannot both take the last slot. */
export async function assertSubscriptionQuota(tx: Tx, organizationId: string, plan: Plan): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`webhooks:${organizationId}`}))`;
  const count = await tx.webhook.count({ where: { organizationId } });
  if (count >= PLAN_SUBSCRIPTIONS[plan]) {
    throw new ApiError('quota_exceeded', `The ${plan} plan allows ${PLAN_SUBSCRIPTIONS[plan]} webhook subscriptions`);
  }
}

export function generateSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

export async function findWebhook(tx: Tx, scope: Scope, webhookId: string): Promise<Webhook> {
  const webhook = await tx.webhook.findFirst({ where: scoped(scope, { id: webhookId }) });
  if (!webhook) throw notFound('webhookId', 'No such webhook');
  return webhook;
}
