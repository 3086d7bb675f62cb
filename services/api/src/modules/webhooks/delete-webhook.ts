import { defineRoute } from '../../http/route';
import { findWebhook } from './webhook-rules';
import { webhookParams } from './webhook-schemas';

/** Deletes the subscription with its delivery log; its queued jobs find nothing and do nothing. */
export const deleteWebhook = defineRoute({
  method: 'delete',
  path: '/webhooks/:webhookId',
  permission: 'webhooks:write',
  params: webhookParams,
  handler: async ({ params, tenant, deps }) => {
    const webhook = await findWebhook(deps.db, tenant, params.webhookId);
    await deps.db.webhook.delete({ where: { id: webhook.id } });
    return undefined;
  },
});
