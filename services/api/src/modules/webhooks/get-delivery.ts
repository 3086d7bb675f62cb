import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { toDeliveryDetail } from './webhook-record';
import { findWebhook } from './webhook-rules';
import { deliveryParams } from './webhook-schemas';

export const getDelivery = defineRoute({
  method: 'get',
  path: '/webhooks/:webhookId/deliveries/:deliveryId',
  permission: 'webhooks:read',
  params: deliveryParams,
  handler: async ({ params, tenant, deps }) => {
    const webhook = await findWebhook(deps.db, tenant, params.webhookId);
    const delivery = await deps.db.delivery.findFirst({
      where: { id: params.deliveryId, webhookId: webhook.id },
      include: { attempts: { orderBy: { attemptNumber: 'asc' } } },
    });
    if (!delivery) throw notFound('deliveryId', 'No such delivery');
    return toDeliveryDetail(delivery);
  },
});
