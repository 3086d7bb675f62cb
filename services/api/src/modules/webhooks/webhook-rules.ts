import { randomBytes } from 'node:crypto';
import type { Plan, TenantTx } from '@worktrack/db';
import { checkWebhookUrl } from '@worktrack/webhooks';
import { ApiError, invalid } from '../../http/errors';

/** docs/decisions.md#limits: subscriptions per organization and mode (test subscriptions never use up live ones); Enterprise has no limit. */
const PLAN_SUBSCRIPTIONS: Record<Plan, number> = { free: 2, pro: 50, enterprise: Number.POSITIVE_INFINITY };

/** docs/decisions.md#fair-delivery: attempts in flight at once per subscription, across all workers. */
export const MAX_CONCURRENCY = { min: 1, max: 100, default: 10 } as const;
/** docs/decisions.md#fair-delivery: attempts per second per subscription, across all workers, when limited at all. */
export const RATE_LIMIT = { min: 1, max: 10_000 } as const;

export async function assertDeliverableUrl(url: string, allowedHosts: string[]): Promise<void> {
  const check = await checkWebhookUrl(url, { allowedHosts });
  if (!check.ok) throw invalid('url', check.message);
}

/** Serializes creations per organization and mode so two concurrent requests cannot both take the last slot. */
export async function assertSubscriptionQuota(tx: TenantTx, plan: Plan): Promise<void> {
  if ((await tx.webhooks.countForCreation()) >= PLAN_SUBSCRIPTIONS[plan]) {
    throw new ApiError('quota_exceeded', `The ${plan} plan allows ${PLAN_SUBSCRIPTIONS[plan]} webhook subscriptions in ${tx.scope.mode} mode`);
  }
}

export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
