import { prismaWindow } from '../../http/keyset';
import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { deliveryRecordSchema, toDeliveryRecord, webhookResource } from './webhook-record';
import { deliveryOrder, listDeliveriesQuery, webhookParams } from './webhook-schemas';

export const listDeliveries = defineRoute({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: '/webhooks/:webhookId/deliveries',
  summary: "List a subscription's deliveries",
  description: 'The delivery log, newest first; filters `status` and `event` combine.',
  tag: 'Webhooks',
  permission: 'webhooks:read',
  params: webhookParams,
  query: listDeliveriesQuery,
  resource: webhookResource,
  status: 200,
  response: pageOf(deliveryRecordSchema),
  handler: async (request) => {
    const { query, resource: webhook, deps } = request;
    const where = { webhookId: webhook.id, ...(query.status && { status: query.status }), ...(query.event && { eventType: query.event }) };
    return paginate(request, {
      order: deliveryOrder,
      rows: (window) => deps.db.delivery.findMany(prismaWindow(where, window)),
      total: () => deps.db.delivery.count({ where }),
      toRecord: toDeliveryRecord,
    });
  },
});
