import { conflict, notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { toDeliveryRecord } from './webhook-record';
import { findWebhook } from './webhook-rules';
import { deliveryParams } from './webhook-schemas';

/** Sends a delivery again, same deliveryId and body, as its next attempt. */
export const redeliver = defineRoute({
  method: 'post',
  path: '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
  permission: 'webhooks:write',
  params: deliveryParams,
  status: 202,
  handler: async ({ params, tenant, deps }) => {
    const webhook = await findWebhook(deps.db, tenant, params.webhookId);
    if (webhook.status !== 'active') throw conflict('The subscription is disabled; re-enable it before redelivering', 'webhookId');
    const { count } = await deps.db.delivery.updateMany({
      where: { id: params.deliveryId, webhookId: webhook.id, OR: [{ lockedUntil: null }, { lockedUntil: { lt: new Date() } }] },
      data: { status: 'pending', nextAttemptAt: new Date() },
    });
    const delivery = await deps.db.delivery.findFirst({ where: { id: params.deliveryId, webhookId: webhook.id } });
    if (!delivery) throw notFound('deliveryId', 'No such delivery');
    if (count === 0) throw conflict('The delivery is being attempted right now', 'deliveryId');
    await deps.jobs.ensureDeliveryScheduled(delivery.id, delivery.attemptCount + 1, { now: true });
    return toDeliveryRecord(delivery);
  },
});
