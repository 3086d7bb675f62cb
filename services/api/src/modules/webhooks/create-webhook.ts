import { newId, webhookSecretContext } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { assertTenantProjects, controlColumns, storeCompiledFilter } from './subscriber-controls';
import { newWebhookSchema, toWebhookRecord } from './webhook-record';
import { assertDeliverableUrl, assertSubscriptionQuota, generateSecret } from './webhook-rules';
import { createWebhookBody } from './webhook-schemas';

/** The secret is returned only when the service generated it, and only in this response. */
export const createWebhook = defineRoute({
  operationId: 'createWebhook',
  method: 'post',
  path: '/webhooks',
  summary: 'Create a webhook subscription',
  description:
    'The `url` must be https and must not resolve to a private, loopback, link-local or metadata address (400). Without `secret`, one is generated (`whsec_...`) and returned in this response only. The plan limits subscriptions per mode: free 2, pro 50 (403 `quota_exceeded`). A subscription made with a test key receives only test events. `maxConcurrency` (1-100, default 10) caps its attempts in flight at once and `rateLimit` (1-10000 per second, default null: none) its attempts per second, across all workers. `ordering: "resource"` sends the deliveries about one resource one at a time, in commit order (default `none`). `projectIds` scopes it to events of those projects (400 for a project the organization and mode do not have), `filter` to events whose data matches (400 naming what is wrong), and `headers` are sent with every delivery (400 for a reserved name).',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  body: createWebhookBody,
  errors: ['quota_exceeded'],
  status: 201,
  response: newWebhookSchema,
  handler: async ({ body, tenant, deps }) => {
    await assertDeliverableUrl(body.url, deps.config.webhookAllowedHosts);
    const secret = body.secret ?? generateSecret();
    const id = newId('webhook');
    const sealed = deps.secrets.seal(secret, webhookSecretContext(id));
    const webhook = await deps.data(tenant).transaction(async (tx) => {
      await assertSubscriptionQuota(tx, tenant.plan);
      if (body.projectIds) await assertTenantProjects(tx, body.projectIds);
      const created = await tx.webhooks.create({
        id,
        url: body.url,
        events: body.events,
        description: body.description ?? null,
        secret: sealed,
        maxConcurrency: body.maxConcurrency,
        rateLimit: body.rateLimit,
        ordering: body.ordering,
        ...controlColumns(id, body, deps.secrets),
      });
      await storeCompiledFilter(tx, id, body.filter);
      return created;
    });
    return { ...toWebhookRecord(webhook), ...(body.secret === undefined && { secret }) };
  },
});
