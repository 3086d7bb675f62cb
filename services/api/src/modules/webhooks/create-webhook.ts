import { newId, scoped } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { newWebhookSchema, toWebhookRecord } from './webhook-record';
import { assertDeliverableUrl, assertSubscriptionQuota, generateSecret } from './webhook-rules';
import { createWebhookBody } from './webhook-schemas';

/** The secret is returned only when the service generated it, and only in this response. */
export const createWebhook = defineRoute({
  operationId: 'createWebhook',
  method: 'post',
  path: '/webhooks',
  summary: 'Create a webhook subscription',
  description:
    'The `url` must be https and must not resolve to a private, loopback, link-local or metadata address (400). Without `secret`, one is generated (`whsec_...`) and returned in this response only. The plan limits subscriptions per mode: free 2, pro 50 (403 `quota_exceeded`). A subscription made with a test key receives only test events.',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  body: createWebhookBody,
  errors: ['quota_exceeded'],
  status: 201,
  response: newWebhookSchema,
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
