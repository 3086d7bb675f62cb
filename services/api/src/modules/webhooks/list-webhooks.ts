import { scoped } from '@worktrack/db';
import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { toWebhookRecord, webhookRecordSchema } from './webhook-record';
import { listWebhooksQuery } from './webhook-schemas';

export const listWebhooks = defineRoute({
  method: 'get',
  path: '/webhooks',
  summary: 'List webhook subscriptions',
  description: "Newest first. Only the calling key's mode: a test key lists the test subscriptions.",
  tag: 'Webhooks',
  permission: 'webhooks:read',
  query: listWebhooksQuery,
  status: 200,
  response: pageOf(webhookRecordSchema),
  handler: async ({ query, tenant, deps }) => {
    const where = scoped(tenant, {});
    return paginate(
      query,
      (window) => deps.db.webhook.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.webhook.count({ where }),
      toWebhookRecord,
    );
  },
});
