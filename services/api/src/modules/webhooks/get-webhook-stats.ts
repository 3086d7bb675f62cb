import Joi from 'joi';
import { out } from '../../http/record-fields';
import { defineRoute } from '../../http/route';
import { webhookResource } from './webhook-record';
import { webhookParams } from './webhook-schemas';
import { webhookStats, type WebhookStats } from './webhook-stats';

const count = () => Joi.number().integer().min(0).required();
const nullableMs = () => Joi.number().integer().min(0).allow(null).required();

const webhookStatsSchema = Joi.object<WebhookStats, true>({
  window: Joi.string().valid('24h').required(),
  attempts: count(),
  succeeded: count(),
  failed: count(),
  successRate: Joi.number().min(0).max(1).allow(null).required().description('succeeded / attempts; null without attempts'),
  p50Ms: nullableMs(),
  p95Ms: nullableMs(),
  lastSuccessAt: out.nullableTimestamp(),
  lastFailureAt: out.nullableTimestamp(),
  hourly: Joi.array()
    .items(Joi.object({ start: out.timestamp(), succeeded: count(), failed: count() }))
    .length(24)
    .required()
    .description('Attempts per hour, oldest hour first, the current hour last'),
}).id('WebhookStats');

/** A subscription's health at a glance: its attempts over the last 24 hours. */
export const getWebhookStats = defineRoute({
  operationId: 'getWebhookStats',
  method: 'get',
  path: '/webhooks/:webhookId/stats',
  summary: "A subscription's delivery health over the last 24 hours",
  tag: 'Webhooks',
  permission: 'webhooks:read',
  params: webhookParams,
  resource: webhookResource,
  status: 200,
  response: webhookStatsSchema,
  handler: async ({ resource, tenant, deps }) => webhookStats(deps.data(tenant), resource.id, new Date()),
});
