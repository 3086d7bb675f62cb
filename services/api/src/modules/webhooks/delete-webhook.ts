import { defineRoute } from '../../http/route';
import { webhookResource } from './webhook-record';
import { webhookParams } from './webhook-schemas';

/** Deletes the subscription with its delivery log; its queued jobs find nothing and do nothing. */
export const deleteWebhook = defineRoute({
  operationId: 'deleteWebhook',
  method: 'delete',
  path: '/webhooks/:webhookId',
  summary: 'Delete a webhook subscription',
  description: 'Deletes its delivery log too; deliveries still queued are not sent.',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  params: webhookParams,
  locks: webhookResource,
  status: 204,
  response: null,
  handler: async ({ deps, tenant, lock }) =>
    deps.data(tenant).transaction(async (tx) => {
      const webhook = await lock(tx);
      await tx.webhooks.remove(webhook.id);
      return undefined;
    }),
});
