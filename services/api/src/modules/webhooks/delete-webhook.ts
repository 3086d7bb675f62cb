import { defineRoute } from '../../http/route';
import { webhookResource } from './webhook-record';
import { webhookParams } from './webhook-schemas';

/** Deletes the subscription with its delivery log; its queued jobs find nothing and do nothing. */
export const deleteWebhook = defineRoute({
  method: 'delete',
  path: '/webhooks/:webhookId',
  summary: 'Delete a webhook subscription',
  description: 'Deletes its delivery log too; deliveries still queued are not sent.',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  params: webhookParams,
  resource: webhookResource,
  status: 204,
  response: null,
  handler: async ({ resource, deps }) => {
    await deps.db.webhook.delete({ where: { id: resource.id } });
    return undefined;
  },
});
