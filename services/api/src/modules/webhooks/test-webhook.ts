import { newId } from '@worktrack/db';
import { buildDeliveryBody, isEventType, sampleEvents, type EventType } from '@worktrack/events';
import { afterCommit } from '../../after-commit';
import { defineRoute } from '../../http/route';
import { deliveryRecordSchema, loadDelivery, toDeliveryRecord, webhookResource } from './webhook-record';
import { testWebhookBody, webhookParams } from './webhook-schemas';

/** Sends a sample payload marked `"test": true`, once, logged like any other delivery. */
export const testWebhook = defineRoute({
  operationId: 'testWebhook',
  method: 'post',
  path: '/webhooks/:webhookId/test',
  summary: 'Send a test delivery',
  description:
    'Sends a sample payload of `event` (default: the first type the subscription lists) marked `"test": true`, once, logged like any other delivery.',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  params: webhookParams,
  body: testWebhookBody,
  resource: webhookResource,
  status: 201,
  response: deliveryRecordSchema,
  location: (delivery, params) => `/webhooks/${params.webhookId}/deliveries/${delivery.id}`,
  handler: async ({ body, resource: webhook, tenant, deps }) => {
    const firstSubscribed = webhook.events.find(isEventType) ?? 'task.created';
    const eventType = (body.event ?? firstSubscribed) as EventType;
    const id = newId('delivery');
    const payload = buildDeliveryBody({
      eventType,
      occurredAt: new Date(),
      webhookId: webhook.id,
      deliveryId: id,
      actor: tenant.actor,
      data: sampleEvents[eventType].data,
      organization: { id: tenant.organizationId, name: tenant.organizationName },
      test: true,
    });
    const data = deps.data(tenant);
    await data.deliveries.insert(webhook.id, [{ id, eventId: null, eventType, body: payload, test: true }]);
    await afterCommit(deps.logger, 'delivery job', () => deps.jobs.scheduleDeliveries([{ deliveryId: id, attempt: 1 }]));
    return toDeliveryRecord(await loadDelivery(data, webhook.id, id));
  },
});
