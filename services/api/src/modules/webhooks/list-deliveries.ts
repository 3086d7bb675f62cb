import { paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { toDeliveryRecord } from './webhook-record';
import { findWebhook } from './webhook-rules';
import { listDeliveriesQuery, webhookParams } from './webhook-schemas';

export const listDeliveries = defineRoute({
  method: 'get',
  path: '/webhooks/:webhookId/deliveries',
  permission: 'webhooks:read',
  params: webhookParams,
  query: listDeliveriesQuery,
  handler: async ({ params, query, tenant, deps }) => {
    const webhook = await findWebhook(deps.db, tenant, params.webhookId);
    const where = { webhookId: webhook.id, ...(query.status && { status: query.status }), ...(query.event && { eventType: query.event }) };
    return paginate(
      query,
      (window) => deps.db.delivery.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.delivery.count({ where }),
      toDeliveryRecord,
    );
  },
});
