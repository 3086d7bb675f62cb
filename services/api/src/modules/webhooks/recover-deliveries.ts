import Joi from 'joi';
import { invalid } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { fields } from '../../http/fields';
import { recoverDeliveries, RECOVERY_LIMIT } from './recovery';
import { webhookParams } from './webhook-schemas';

const RECOVERY_WINDOW_MS = 14 * 24 * 3600 * 1000;
// Grouped by hand: `toLocaleString` would page some 6 MB of ICU's locale data into every API process, for one sentence.
const RECOVERY_LIMIT_TEXT = String(RECOVERY_LIMIT).replace(/\B(?=(\d{3})+$)/g, ',');

const recoverBody = Joi.object<{ since: string; until?: string }, true>({
  since: fields.timestamp().required().description('At most 14 days back'),
  until: fields.timestamp().description('Default: now'),
});

/**
 * Sends again what a subscription missed in a window (docs/decisions.md#delivery-log-and-recovery): its failed deliveries, with
 * the same deliveryId and a fresh set of attempts, and a new delivery for every event of a type it
 * lists that has none (made while it was disabled, say). At most 10,000 per call.
 */
export const recover = defineRoute({
  operationId: 'recoverWebhookDeliveries',
  method: 'post',
  path: '/webhooks/:webhookId/recover',
  summary: 'Recover missed and failed deliveries since a time',
  description: `Resends the failed deliveries created in the window and makes the missing ones for its events, at most ${RECOVERY_LIMIT_TEXT} per call (call again while \`recovered\` reaches it). 409 when the subscription is disabled.`,
  tag: 'Webhooks',
  permission: 'webhooks:write',
  params: webhookParams,
  body: recoverBody,
  status: 202,
  response: Joi.object<{ recovered: number }, true>({ recovered: Joi.number().integer().min(0).max(RECOVERY_LIMIT).required() }).id('Recovery'),
  errors: ['not_found', 'conflict'],
  handler: async ({ params, body, tenant, deps }) => {
    const now = Date.now();
    const since = new Date(body.since);
    const until = body.until === undefined ? new Date(now) : new Date(body.until);
    if (since.getTime() < now - RECOVERY_WINDOW_MS) throw invalid('since', 'since must be within the last 14 days');
    if (until <= since) throw invalid('until', 'until must be after since');
    return { recovered: await recoverDeliveries(deps.data(tenant), tenant, { webhookId: params.webhookId, since, until }) };
  },
});
