import { defineRoute } from '../../http/route';
import { toWebhookRecord, webhookRecordSchema, webhookResource } from './webhook-record';
import { assertDeliverableUrl } from './webhook-rules';
import { updateWebhookBody, webhookParams } from './webhook-schemas';

const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * Changes url, events, description; rotates the secret (the old one keeps signing
 * `webhook-signature` for 24 h); `status: "active"` re-enables a disabled subscription and
 * resumes its pending deliveries at once.
 */
export const updateWebhook = defineRoute({
  operationId: 'updateWebhook',
  method: 'patch',
  path: '/webhooks/:webhookId',
  summary: 'Update a webhook subscription',
  description:
    'Changes `url`, `events`, `description`. A new `secret` rotates it: the old one keeps signing `webhook-signature` for 24 hours. `status: "active"` re-enables a disabled subscription and resumes its pending deliveries at once; `status: "disabled"` pauses it.',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  params: webhookParams,
  body: updateWebhookBody,
  locks: webhookResource,
  status: 200,
  response: webhookRecordSchema,
  handler: async ({ body, deps, lock }) => {
    if (body.url !== undefined) await assertDeliverableUrl(body.url, deps.config.webhookAllowedHosts);
    const { webhook, resumed } = await deps.db.$transaction(async (tx) => {
      const existing = await lock(tx);
      const reenabling = body.status === 'active' && existing.status === 'disabled';
      const disabling = body.status === 'disabled' && existing.status === 'active';
      const rotating = body.secret !== undefined && body.secret !== existing.secret;
      const webhook = await tx.webhook.update({
        where: { id: existing.id },
        data: {
          url: body.url,
          events: body.events,
          description: body.description,
          ...(rotating && { secret: body.secret, previousSecret: existing.secret, previousSecretExpiresAt: new Date(Date.now() + ROTATION_OVERLAP_MS) }),
          ...(reenabling && { status: 'active', disabledReason: null, disabledAt: null }),
          ...(disabling && { status: 'disabled', disabledReason: 'manual', disabledAt: new Date() }),
        },
      });
      if (!reenabling) return { webhook, resumed: [] };
      await tx.delivery.updateMany({ where: { webhookId: webhook.id, status: 'pending' }, data: { nextAttemptAt: new Date(), lockedUntil: null } });
      const resumed = await tx.delivery.findMany({ where: { webhookId: webhook.id, status: 'pending' }, select: { id: true, attemptCount: true } });
      return { webhook, resumed };
    });
    for (const delivery of resumed) {
      // Best effort: if Redis is down now, the worker's sweep resumes them.
      await deps.jobs.ensureDeliveryScheduled(delivery.id, delivery.attemptCount + 1, { now: true }).catch(() => undefined);
    }
    return toWebhookRecord(webhook);
  },
});
