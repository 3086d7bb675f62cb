import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { toWebhookRecord, webhookRecordSchema } from './webhook-record';
import { listWebhooksQuery, webhookOrder } from './webhook-schemas';

export const listWebhooks = defineRoute({
  operationId: 'listWebhooks',
  method: 'get',
  path: '/webhooks',
  summary: 'List webhook subscriptions',
  description: "Newest first. Only the calling key's mode: a test key lists the test subscriptions.",
  tag: 'Webhooks',
  permission: 'webhooks:read',
  query: listWebhooksQuery,
  status: 200,
  response: pageOf(webhookRecordSchema),
  handler: async (request) => {
    const { tenant, deps } = request;
    return paginate(request, { order: webhookOrder, ...deps.data(tenant).webhooks.list(), toRecord: toWebhookRecord });
  },
});
