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
    const { query, resource: webhook, tenant, deps } = request;
    const deliveries = deps.data(tenant).deliveries.list(webhook.id, { status: query.status, eventType: query.event });
    return paginate(request, { order: deliveryOrder, ...deliveries, toRecord: toDeliveryRecord });
  },
});
