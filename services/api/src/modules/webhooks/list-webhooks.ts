import { scoped } from '@worktrack/db';
import { prismaWindow } from '../../http/keyset';
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
    const where = scoped(tenant, {});
    return paginate(request, {
      order: webhookOrder,
      rows: (window) => deps.db.webhook.findMany(prismaWindow(where, window)),
      total: () => deps.db.webhook.count({ where }),
      toRecord: toWebhookRecord,
    });
  },
});
