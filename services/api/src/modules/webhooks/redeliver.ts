import { afterCommit } from '../../after-commit';
import { conflict } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { deliveryRecordSchema, loadDelivery, toDeliveryRecord, webhookResource } from './webhook-record';
import { deliveryParams } from './webhook-schemas';

/** Sends a delivery again, same deliveryId and body, as its next attempt. */
export const redeliver = defineRoute({
  operationId: 'redeliverWebhookDelivery',
  method: 'post',
  path: '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
  summary: 'Send a delivery again',
  description:
    'Same `deliveryId` and body, as its next attempt, now. 409 while the subscription is disabled (re-enable it first) or while the delivery is being attempted.',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  params: deliveryParams,
  // The subscription, then its delivery: each answers 404 naming its own parameter.
  resource: webhookResource,
  errors: ['not_found', 'conflict'],
  status: 202,
  response: deliveryRecordSchema,
  handler: async ({ params, resource: webhook, tenant, deps }) => {
    if (webhook.status !== 'active') throw conflict('The subscription is disabled; re-enable it before redelivering', 'webhookId');
    const data = deps.data(tenant);
    const madeDue = await data.deliveries.makeDue(webhook.id, params.deliveryId);
    const delivery = await loadDelivery(data, webhook.id, params.deliveryId);
    if (!madeDue) throw conflict('The delivery is being attempted right now', 'deliveryId');
    await afterCommit(deps.logger, 'delivery job', () => deps.jobs.ensureDeliveryScheduled(delivery.id, delivery.attemptCount + 1, { now: true }));
    return toDeliveryRecord(delivery);
  },
});
