import { defineRoute } from '../../http/route';
import { toWebhookRecord, webhookRecordSchema, webhookResource } from './webhook-record';
import { webhookParams } from './webhook-schemas';

export const getWebhook = defineRoute({
  operationId: 'getWebhook',
  method: 'get',
  path: '/webhooks/:webhookId',
  summary: 'Get a webhook subscription',
  tag: 'Webhooks',
  permission: 'webhooks:read',
  params: webhookParams,
  resource: webhookResource,
  etag: true,
  status: 200,
  response: webhookRecordSchema,
  handler: async ({ resource }) => toWebhookRecord(resource),
});
