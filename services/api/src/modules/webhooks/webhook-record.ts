import Joi from 'joi';
import { DeliveryOrdering, DeliveryStatus, WebhookStatus, type Delivery, type DeliveryAttempt, type TenantTx, type Webhook } from '@worktrack/db';
import { EVENT_TYPES } from '@worktrack/events';
import { HTTP_TOKEN, RECORDED_RESPONSE_HEADERS } from '@worktrack/webhooks';
import { notFound } from '../../http/errors';
import { out } from '../../http/record-fields';
import { defineResource } from '../../http/route';
import { iso } from '../timestamps';
import { MAX_CONCURRENCY, RATE_LIMIT } from './webhook-rules';

/** A subscription as the API shows it (docs/decisions.md#subscriptions): never its secret. */
export interface WebhookRecord {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: WebhookStatus;
  disabledReason: string | null;
  disabledAt: string | null;
  maxConcurrency: number;
  rateLimit: number | null;
  ordering: DeliveryOrdering;
  pausedUntil: string | null;
  projectIds: string[] | null;
  filter: Record<string, unknown> | null;
  /** Names and masked values: the values are never shown. */
  headers: Record<string, string> | null;
  createdAt: string;
  updatedAt: string;
}

/** The answer to a create: the record, and the secret when the service generated it, shown this once. */
export interface NewWebhook extends WebhookRecord {
  secret?: string;
}

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  eventId: string | null;
  event: string;
  status: DeliveryStatus;
  test: boolean;
  attemptCount: number;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastResponseTimeMs: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

export interface DeliveryAttemptRecord {
  attemptNumber: number;
  attemptedAt: string;
  responseStatus: number | null;
  responseTimeMs: number;
  error: string | null;
  responseBody: string | null;
  responseHeaders: Record<string, string> | null;
  requestHeaders: Record<string, string> | null;
}

/** A delivery with the body it sends and every attempt, oldest first. */
export interface DeliveryDetail extends DeliveryRecord {
  payload: Record<string, unknown>;
  attempts: DeliveryAttemptRecord[];
}

/**
 * A pause the worker set is shown while it holds (docs/decisions.md#fair-delivery); once passed it means nothing,
 * whether or not the worker has cleared it yet, so the record says null.
 */
function pauseOf(webhook: Webhook): string | null {
  return webhook.pausedUntil && webhook.pausedUntil.getTime() > Date.now() ? webhook.pausedUntil.toISOString() : null;
}

export function toWebhookRecord(webhook: Webhook): WebhookRecord {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    status: webhook.status,
    disabledReason: webhook.disabledReason,
    disabledAt: iso(webhook.disabledAt),
    maxConcurrency: webhook.maxConcurrency,
    rateLimit: webhook.rateLimit,
    ordering: webhook.ordering,
    pausedUntil: pauseOf(webhook),
    projectIds: webhook.projectIds.length > 0 ? webhook.projectIds : null,
    filter: webhook.filter as Record<string, unknown> | null,
    headers: webhook.headers as Record<string, string> | null,
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
  };
}

type LastAttempt = Pick<DeliveryAttempt, 'responseStatus' | 'responseTimeMs'>;

/** A delivery, with its last attempt when given (listed with `lastAttemptOfDelivery`, newest first). */
export function toDeliveryRecord(delivery: Delivery & { attempts?: LastAttempt[] }, last: LastAttempt | undefined = delivery.attempts?.[0]): DeliveryRecord {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    event: delivery.eventType,
    status: delivery.status,
    test: delivery.test,
    attemptCount: delivery.attemptCount,
    lastAttemptAt: iso(delivery.lastAttemptAt),
    lastResponseStatus: last?.responseStatus ?? null,
    lastResponseTimeMs: last?.responseTimeMs ?? null,
    nextAttemptAt: delivery.status === 'pending' ? iso(delivery.nextAttemptAt) : null,
    createdAt: delivery.createdAt.toISOString(),
  };
}

export function toDeliveryDetail(delivery: Delivery & { attempts: DeliveryAttempt[] }): DeliveryDetail {
  return {
    ...toDeliveryRecord(delivery, delivery.attempts.at(-1)),
    payload: JSON.parse(delivery.body) as Record<string, unknown>,
    attempts: delivery.attempts.map((a) => ({
      attemptNumber: a.attemptNumber,
      attemptedAt: a.attemptedAt.toISOString(),
      responseStatus: a.responseStatus,
      responseTimeMs: a.responseTimeMs,
      error: a.error,
      responseBody: a.responseBody,
      responseHeaders: a.responseHeaders as Record<string, string> | null,
      requestHeaders: a.requestHeaders as Record<string, string> | null,
    })),
  };
}

const webhookFields = {
  id: out.id('whk'),
  url: Joi.string().required().example('https://example.com/hooks/worktrack'),
  events: Joi.array()
    .items(Joi.string().valid('*', ...EVENT_TYPES))
    .required()
    .description('The event types it receives, or `["*"]` for all'),
  description: out.nullableString(),
  status: Joi.string()
    .valid(...Object.values(WebhookStatus))
    .required(),
  disabledReason: Joi.string()
    .valid('delivery_failures', 'manual')
    .allow(null)
    .required()
    .description('`delivery_failures` when a delivery exhausted its retries, `manual` when disabled by PATCH; null while active'),
  disabledAt: out.nullableTimestamp(),
  maxConcurrency: Joi.number()
    .integer()
    .min(MAX_CONCURRENCY.min)
    .max(MAX_CONCURRENCY.max)
    .required()
    .description('Attempts in flight at once across all workers; more wait their turn'),
  rateLimit: Joi.number()
    .integer()
    .min(RATE_LIMIT.min)
    .max(RATE_LIMIT.max)
    .allow(null)
    .required()
    .description('Attempts per second across all workers; null for no limit'),
  ordering: Joi.string()
    .valid(...Object.values(DeliveryOrdering))
    .required()
    .description('`resource`: the deliveries about one resource are sent one at a time, in commit order; `none`: in no particular order'),
  pausedUntil: out
    .nullableTimestamp()
    .description(
      'Set when the receiver answered 429 or 503 with Retry-After: no attempts are made until then (at most an hour ahead), and the waiting ones do not count as failures. Null when not paused. Read-only.',
    ),
  projectIds: Joi.array()
    .items(out.id('prj'))
    .allow(null)
    .required()
    .description('It receives only events of these projects, and no member events; null: every event'),
  filter: Joi.object()
    .unknown(true)
    .allow(null)
    .required()
    .description('It receives only events whose `data` matches, as written; null: no filter')
    .example({ priority: { $in: ['high'] } }),
  headers: Joi.object()
    .pattern(HTTP_TOKEN, Joi.string().pattern(/^\*{4}/))
    .allow(null)
    .required()
    .description('Sent with every delivery; the values masked (`****` and, for values of 12 characters or more, the last 4)')
    .example({ Authorization: '****51d8' }),
  createdAt: out.timestamp(),
  updatedAt: out.timestamp(),
};

export const webhookRecordSchema = Joi.object<WebhookRecord, true>(webhookFields).id('Webhook');

export const newWebhookSchema = Joi.object<NewWebhook, true>({
  ...webhookFields,
  secret: Joi.string()
    .pattern(/^whsec_/)
    .description('Only when the request omitted `secret`: the generated one, shown this once'),
}).id('NewWebhook');

const deliveryFields = {
  id: out.id('dlv'),
  webhookId: out.id('whk'),
  eventId: Joi.string().allow(null).required().description('The event it delivers; null for test deliveries').example('evt_01JD6X2ZKQ4R8T5N7M3P9W1VBC'),
  event: Joi.string()
    .valid(...EVENT_TYPES)
    .required(),
  status: Joi.string()
    .valid(...Object.values(DeliveryStatus))
    .required(),
  test: Joi.boolean().required().description('A sample delivery of POST /webhooks/{webhookId}/test'),
  attemptCount: Joi.number().integer().min(0).required(),
  lastAttemptAt: out.nullableTimestamp(),
  lastResponseStatus: Joi.number().integer().allow(null).required().description("The last attempt's HTTP status; null before any attempt or when none came"),
  lastResponseTimeMs: Joi.number().integer().min(0).allow(null).required().description('How long the last attempt took; null before any attempt'),
  nextAttemptAt: out.nullableTimestamp().description('When the next attempt is due; null unless pending'),
  createdAt: out.timestamp(),
};

export const deliveryRecordSchema = Joi.object<DeliveryRecord, true>(deliveryFields).id('Delivery');

const deliveryAttemptSchema = Joi.object<DeliveryAttemptRecord, true>({
  attemptNumber: Joi.number().integer().min(1).required(),
  attemptedAt: out.timestamp(),
  responseStatus: Joi.number().integer().allow(null).required().description('null when no response came (timeout, connection error)'),
  responseTimeMs: Joi.number().integer().min(0).required(),
  error: out.nullableString(),
  responseBody: out.nullableString().description('The first 4 KiB of the response body, as text'),
  responseHeaders: Joi.object(Object.fromEntries(RECORDED_RESPONSE_HEADERS.map((name) => [name, Joi.string()])))
    .allow(null)
    .required()
    .description('content-type, content-length and retry-after, when the response had them; null when no response came'),
  requestHeaders: Joi.object()
    .pattern(HTTP_TOKEN, Joi.string())
    .allow(null)
    .required()
    .description(
      "The headers the attempt sent, signatures included (never the secret); the subscription's own header values masked as on the subscription. null for attempts made before they were kept",
    )
    .example({
      'Content-Type': 'application/json',
      'webhook-id': 'dlv_01J9Z3K6Q8X2M5T7V4W1N0P3R6',
      'webhook-signature': 'v1,K77CQxPtezk7I2dkifEhTdzAq39rbu8p82QdAoThEYw=',
    }),
}).id('DeliveryAttempt');

export const deliveryDetailSchema = Joi.object<DeliveryDetail, true>({
  ...deliveryFields,
  payload: Joi.object().unknown(true).required().description('The JSON body sent on every attempt'),
  attempts: Joi.array().items(deliveryAttemptSchema).required(),
}).id('DeliveryDetail');

/** The tenant's subscriptions, by `webhookId`. */
export const webhookResource = defineResource<Webhook>({
  param: 'webhookId',
  name: 'webhook',
  find: (data, id) => data.webhooks.find(id),
  lockRow: (tx, id) => tx.webhooks.lock(id),
  toRecord: toWebhookRecord,
});

/**
 * The one lookup of a delivery: the tenant's, of the subscription named by the path (a delivery
 * of another subscription is not found there), or a 404 naming `deliveryId`.
 */
export async function loadDelivery(data: TenantTx, webhookId: string, deliveryId: string) {
  const delivery = await data.deliveries.find(webhookId, deliveryId);
  if (!delivery) throw notFound('deliveryId', 'No such delivery');
  return delivery;
}
