import { UnreadableSecretError, webhookSecretContext, type SecretBox } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { assertTenantProjects, controlColumns, storeCompiledFilter } from './subscriber-controls';
import { toWebhookRecord, webhookRecordSchema, webhookResource } from './webhook-record';
import { assertDeliverableUrl } from './webhook-rules';
import { updateWebhookBody, webhookParams } from './webhook-schemas';

const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** The current secret, or null when no configured key opens it: a new one then replaces it with no overlap. */
function readableSecret(secrets: SecretBox, stored: string, context: string): string | null {
  try {
    return secrets.open(stored, context);
  } catch (err) {
    if (err instanceof UnreadableSecretError) return null;
    throw err;
  }
}

/**
 * Changes url, events, description, maxConcurrency, rateLimit, ordering, projectIds, filter, headers; rotates the secret (the old one
 * keeps signing `webhook-signature` for 24 h); `status: "active"` re-enables a disabled
 * subscription, lifts a receiver's pause and resumes its pending deliveries at once.
 */
export const updateWebhook = defineRoute({
  operationId: 'updateWebhook',
  method: 'patch',
  path: '/webhooks/:webhookId',
  summary: 'Update a webhook subscription',
  description:
    'Changes `url`, `events`, `description`, `maxConcurrency`, `rateLimit` (null removes the limit; a new rate applies at once), `ordering` (applies at once to the deliveries not yet sent), `projectIds`, `filter` and `headers` (each replaced whole; null removes it; they apply to events written from then on). A new `secret` rotates it: the old one keeps signing `webhook-signature` for 24 hours. `status: "active"` re-enables a disabled subscription, lifts a pause set by its receiver’s Retry-After and resumes its pending deliveries at once; `status: "disabled"` pauses it.',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  params: webhookParams,
  body: updateWebhookBody,
  locks: webhookResource,
  status: 200,
  response: webhookRecordSchema,
  handler: async ({ body, tenant, deps, lock }) => {
    if (body.url !== undefined) await assertDeliverableUrl(body.url, deps.config.webhookAllowedHosts);
    const webhook = await deps.data(tenant).transaction(async (tx) => {
      const existing = await lock(tx);
      if (body.projectIds) await assertTenantProjects(tx, body.projectIds);
      const reenabling = body.status === 'active' && existing.status === 'disabled';
      const disabling = body.status === 'disabled' && existing.status === 'active';
      const context = webhookSecretContext(existing.id);
      const current = body.secret === undefined ? null : readableSecret(deps.secrets, existing.secret, context);
      const rotating = body.secret !== undefined && body.secret !== current;
      // The worker's token bucket counts tokens at the old rate; reset, it starts afresh at the new one.
      const rerating = body.rateLimit !== undefined && body.rateLimit !== existing.rateLimit;
      const webhook = await tx.webhooks.update(existing.id, {
        url: body.url,
        events: body.events,
        description: body.description,
        maxConcurrency: body.maxConcurrency,
        ...controlColumns(existing.id, body, deps.secrets),
        ...(rerating && { rateLimit: body.rateLimit, rateTokens: null, rateTokensAt: null }),
        ordering: body.ordering,
        ...(rotating && {
          // Both sealed afresh (docs/decisions.md#http-behaviour-and-secrets-at-rest): the old one may date from before sealing.
          secret: deps.secrets.seal(body.secret!, context),
          previousSecret: current === null ? null : deps.secrets.seal(current, context),
          previousSecretExpiresAt: new Date(Date.now() + ROTATION_OVERLAP_MS),
        }),
        ...(reenabling && { status: 'active', disabledReason: null, disabledAt: null, pausedUntil: null }),
        ...(disabling && { status: 'disabled', disabledReason: 'manual', disabledAt: new Date() }),
      });
      await storeCompiledFilter(tx, webhook.id, body.filter);
      if (body.ordering !== undefined && body.ordering !== existing.ordering) await tx.deliveries.matchOrdering(webhook.id, body.ordering);
      if (!reenabling) return webhook;
      // Due at once, for the workers' claims to find; a delivery still leased (a test send in flight)
      // is left to its worker, and one whose lease lapsed is claimed again as it is.
      await tx.deliveries.resumePending(webhook.id);
      return webhook;
    });
    return toWebhookRecord(webhook);
  },
});
