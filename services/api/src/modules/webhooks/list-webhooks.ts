import { scoped } from '@worktrack/db';
import { paginate } from '../../http/pagination';
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
    return paginate(
      query,
      (window) => deps.db.webhook.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.webhook.count({ where }),
      toWebhookRecord,
    );
  },
});
