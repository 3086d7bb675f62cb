import { scoped } from '@worktrack/db';
import { envelope } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { toWebhookRecord } from './webhook-record';
import { listWebhooksQuery } from './webhook-schemas';

export const listWebhooks = defineRoute({
  method: 'get',
  path: '/webhooks',
  permission: 'webhooks:read',
  query: listWebhooksQuery,
  handler: async ({ query, tenant, deps }) => {
    const where = scoped(tenant, {});
    const [webhooks, total] = await deps.db.$transaction([
      deps.db.webhook.findMany({ where, orderBy: { id: 'desc' }, take: query.limit, skip: query.offset }),
      deps.db.webhook.count({ where }),
    ]);
    return envelope(webhooks.map(toWebhookRecord), total, query);
  },
});
