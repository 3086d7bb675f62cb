import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { deliveryRecordSchema, toDeliveryRecord, webhookResource } from './webhook-record';
import { deliveryOrder, listDeliveriesQuery, webhookParams } from './webhook-schemas';

export const listDeliveries = defineRoute({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: '/webhooks/:webhookId/deliveries',
  summary: "List a subscription's deliveries",
  description:
    "The delivery log, newest first, each with its last attempt's HTTP status and time. Filters combine: `status`, `event`, a creation window (`since`, `until`), and a search by `deliveryId`, `eventId` or `resourceId` (the id in the event's `data`).",
  tag: 'Webhooks',
  permission: 'webhooks:read',
  params: webhookParams,
  query: listDeliveriesQuery,
  resource: webhookResource,
  status: 200,
  response: pageOf(deliveryRecordSchema),
  handler: async (request) => {
    const { query, resource: webhook, tenant, deps } = request;
    const deliveries = deps.data(tenant).deliveries.list(webhook.id, {
      status: query.status,
      eventType: query.event,
      deliveryId: query.deliveryId,
      eventId: query.eventId,
      resourceId: query.resourceId,
      since: query.since === undefined ? undefined : new Date(query.since),
      until: query.until === undefined ? undefined : new Date(query.until),
    });
    return paginate(request, { order: deliveryOrder, ...deliveries, toRecord: (delivery) => toDeliveryRecord(delivery) });
  },
});
