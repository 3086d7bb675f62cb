import { defineRoute } from '../../http/route';
import { deliveryDetailSchema, loadDelivery, toDeliveryDetail, webhookResource } from './webhook-record';
import { deliveryParams } from './webhook-schemas';

export const getDelivery = defineRoute({
  operationId: 'getWebhookDelivery',
  method: 'get',
  path: '/webhooks/:webhookId/deliveries/:deliveryId',
  summary: 'Get a delivery with its attempts',
  description: 'With the body it sends on every attempt, and every attempt, oldest first, with what the receiver answered.',
  tag: 'Webhooks',
  permission: 'webhooks:read',
  params: deliveryParams,
  // The subscription, then its delivery: each answers 404 naming its own parameter.
  resource: webhookResource,
  errors: ['not_found'],
  etag: true,
  status: 200,
  response: deliveryDetailSchema,
  handler: async ({ params, resource: webhook, tenant, deps }) => {
    const data = deps.data(tenant);
    const delivery = await loadDelivery(data, webhook.id, params.deliveryId);
    const attempts = await data.deliveries.attempts(delivery.id);
    return toDeliveryDetail({ ...delivery, attempts });
  },
});
