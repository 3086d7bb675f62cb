import { defineRoute } from '../../http/route';
import { toWebhookRecord } from './webhook-record';
import { findWebhook } from './webhook-rules';
import { webhookParams } from './webhook-schemas';

export const getWebhook = defineRoute({
  method: 'get',
  path: '/webhooks/:webhookId',
  permission: 'webhooks:read',
  params: webhookParams,
  handler: async ({ params, tenant, deps }) => toWebhookRecord(await findWebhook(deps.db, tenant, params.webhookId)),
});
