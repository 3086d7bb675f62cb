import { newId, scoped } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { toWebhookRecord } from './webhook-record';
import { assertDeliverableUrl, assertSubscriptionQuota, generateSecret } from './webhook-rules';
import { createWebhookBody } from './webhook-schemas';

/** The secret is returned only when the service generated it, and only in this response. */
export const createWebhook = defineRoute({
  method: 'post',
  path: '/webhooks',
  permission: 'webhooks:write',
  body: createWebhookBody,
  status: 201,
  handler: async ({ body, tenant, deps }) => {
    await assertDeliverableUrl(body.url, deps.config.webhookAllowedHosts);
    const secret = body.secret ?? generateSecret();
    const webhook = await deps.db.$transaction(async (tx) => {
      await assertSubscriptionQuota(tx, tenant, tenant.plan);
      return tx.webhook.create({
        data: scoped(tenant, { id: newId('webhook'), url: body.url, events: body.events, description: body.description ?? null, secret }),
      });
    });
    return { ...toWebhookRecord(webhook), ...(body.secret === undefined && { secret }) };
  },
});
