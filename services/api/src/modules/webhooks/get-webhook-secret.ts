import Joi from 'joi';
import { webhookSecretContext } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { webhookResource } from './webhook-record';
import { webhookParams } from './webhook-schemas';

interface WebhookSecret {
  secret: string;
}

const webhookSecretSchema = Joi.object<WebhookSecret, true>({
  secret: Joi.string().required().description('The secret that signs its deliveries now'),
}).id('WebhookSecret');

/** Reveals the current signing secret (docs/decisions.md#http-behaviour-and-secrets-at-rest): kept sealed at rest, opened for the caller alone. */
export const getWebhookSecret = defineRoute({
  operationId: 'getWebhookSecret',
  method: 'get',
  path: '/webhooks/:webhookId/secret',
  summary: "Reveal a subscription's signing secret",
  description:
    'The secret that signs its deliveries now (after a rotation, the new one). Needs `webhooks:write`, as changing it does. The answer is never cached (`Cache-Control: no-store`).',
  tag: 'Webhooks',
  permission: 'webhooks:write',
  params: webhookParams,
  resource: webhookResource,
  status: 200,
  response: webhookSecretSchema,
  // Never cached: every answer under /v1 carries `Cache-Control: no-store`.
  handler: async ({ resource: webhook, deps }) => ({ secret: deps.secrets.open(webhook.secret, webhookSecretContext(webhook.id)) }),
});
