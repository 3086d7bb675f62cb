import Joi from 'joi';
import { DeliveryOrdering, DeliveryStatus } from '@worktrack/db';
import { EVENT_TYPES } from '@worktrack/events';
import { checkCustomHeaders, MAX_CUSTOM_HEADER_VALUE_BYTES, MAX_CUSTOM_HEADERS, standardSecretKey } from '@worktrack/webhooks';
import { creationOrder } from '../../http/list-order';
import { pageQuery, type PageParams } from '../../http/pagination';
import { compileFilter, MAX_FILTER_BYTES } from './subscription-filter';
import { MAX_CONCURRENCY, RATE_LIMIT } from './webhook-rules';
import type { DeliveryRecord, WebhookRecord } from './webhook-record';
import { fields } from '../../http/fields';

const url = Joi.string()
  .max(2048)
  .uri({ scheme: ['https', 'http'] })
  .messages({ 'string.uriCustomScheme': 'url must be an https URL' });
// Alternatives, for one message naming `events` whatever is wrong; it yields a string[], but joi's
// strict object typing wants an ArraySchema for an array field, hence the cast.
const events = Joi.alternatives(
  Joi.array().items(Joi.string().valid('*')).length(1),
  Joi.array()
    .items(Joi.string().valid(...EVENT_TYPES))
    .min(1)
    .unique(),
).messages({ 'alternatives.match': `events must be ["*"] or a non-empty list drawn from: ${EVENT_TYPES.join(', ')}` }) as Joi.Schema<
  string[]
> as Joi.ArraySchema<string[]>;
const description = Joi.string().max(500).allow(null);
// docs/decisions.md#signatures-and-secrets: 8-255 characters; one that claims the Standard Webhooks form must be of it.
const secret = Joi.string()
  .min(8)
  .max(255)
  .custom((value: string, helpers) => (value.startsWith('whsec_') && !standardSecretKey(value) ? helpers.error('secret.standard') : value))
  .messages({ 'secret.standard': 'secret starting with whsec_ must be whsec_ followed by the base64 of 24 to 64 bytes' });
// Strict: a JSON number, never a numeric string.
const maxConcurrency = Joi.number()
  .strict()
  .integer()
  .min(MAX_CONCURRENCY.min)
  .max(MAX_CONCURRENCY.max)
  .description(`Attempts in flight at once across all workers, ${MAX_CONCURRENCY.min}-${MAX_CONCURRENCY.max}`);
const rateLimit = Joi.number()
  .strict()
  .integer()
  .min(RATE_LIMIT.min)
  .max(RATE_LIMIT.max)
  .allow(null)
  .description(`Attempts per second across all workers, ${RATE_LIMIT.min}-${RATE_LIMIT.max}; null for no limit`);
const ordering = Joi.string()
  .valid(...Object.values(DeliveryOrdering))
  .description(
    '`resource`: the deliveries of events about one resource (the task, project, comment, file, member, label or relation whose `id` is in `data`) are sent one at a time, in the order the changes were committed; a failing one holds back only its own resource while it is retried. `none`: no order. A change applies at once to the deliveries not yet sent.',
  );

// docs/decisions.md#subscriber-controls: whatever is wrong inside them, the error names the field.
const namingTheField = (errors: Joi.ErrorReport[]) => errors.map((error) => Object.assign(error, { path: error.path.slice(0, 1) }));
const projectIds = Joi.array()
  .items(Joi.string().min(1).max(100))
  .min(1)
  .max(100)
  .unique()
  .allow(null)
  .error(namingTheField)
  .description(
    'Only events of these projects (task, comment and file events by their project, project events by the project itself); never member events. null: every event',
  )
  .example(['prj_01JD7W4Q9X2M3N4P5R6S7T8V9W']);
const filter = Joi.object()
  .unknown(true)
  .allow(null)
  .custom((value: Record<string, unknown>, helpers) => {
    const check = compileFilter(value);
    return check.ok ? value : helpers.error('filter.invalid', { reason: check.message });
  })
  .messages({ 'filter.invalid': '{{#reason}}' })
  .description(
    `Clauses over the event's \`data\`, keyed by dotted path, all of which must match: a value (equality), or an object of operators \`$in\`, \`$ne\`, \`$exists\`, \`$gte\`, \`$lte\` (numbers and RFC 3339 timestamps). At most ${MAX_FILTER_BYTES} bytes. null: no filter. See the webhooks guide.`,
  )
  .example({ priority: { $in: ['high'] }, dueDate: { $gte: '2026-12-01T00:00:00Z' } });
const headers = Joi.object()
  // Any name here, so that checkCustomHeaders says what is wrong with one.
  .pattern(/^/, Joi.string().max(MAX_CUSTOM_HEADER_VALUE_BYTES))
  .max(MAX_CUSTOM_HEADERS)
  .allow(null)
  .custom((value: Record<string, string>, helpers) => {
    const check = checkCustomHeaders(value);
    return check.ok ? value : helpers.error('headers.invalid', { reason: check.message });
  })
  .messages({ 'headers.invalid': '{{#reason}}' })
  .error(namingTheField)
  .description(
    `Up to ${MAX_CUSTOM_HEADERS} headers sent with every delivery: names are HTTP tokens other than content-type, content-length, host, user-agent, webhook-* and x-service-*; values printable ASCII, at most ${MAX_CUSTOM_HEADER_VALUE_BYTES} bytes, encrypted at rest and shown masked. null: none`,
  )
  .example({ Authorization: 'Bearer gw_live_7f3a9c2e51d8', 'X-Route': 'tasks' });

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null;
  secret?: string;
  maxConcurrency?: number;
  rateLimit?: number | null;
  ordering?: DeliveryOrdering;
  projectIds?: string[] | null;
  filter?: Record<string, unknown> | null;
  headers?: Record<string, string> | null;
}

export interface WebhookPatch extends Partial<WebhookInput> {
  status?: 'active' | 'disabled';
}

export const webhookParams = Joi.object<{ webhookId: string }, true>({ webhookId: Joi.string().max(100).required() });
export const deliveryParams = Joi.object<{ webhookId: string; deliveryId: string }, true>({
  webhookId: Joi.string().max(100).required(),
  deliveryId: Joi.string().max(100).required(),
});

export const createWebhookBody = Joi.object<WebhookInput, true>({
  url: url.required(),
  events: events.required(),
  description,
  secret,
  maxConcurrency: maxConcurrency.default(MAX_CONCURRENCY.default),
  rateLimit: rateLimit.default(null),
  ordering: ordering.default('none'),
  projectIds: projectIds.default(null),
  filter: filter.default(null),
  headers: headers.default(null),
});
export const updateWebhookBody = Joi.object<WebhookPatch, true>({
  url,
  events,
  description,
  secret,
  maxConcurrency,
  rateLimit,
  ordering,
  projectIds,
  filter,
  headers,
  status: Joi.string().valid('active', 'disabled'),
});

export const webhookOrder = creationOrder<WebhookRecord>('webhooks', '-createdAt');
export const listWebhooksQuery = Joi.object<PageParams<'createdAt'>, true>({ ...pageQuery(webhookOrder) });
export const deliveryOrder = creationOrder<DeliveryRecord>('deliveries', '-createdAt');
export interface DeliveryFilters {
  status?: DeliveryStatus;
  event?: string;
  deliveryId?: string;
  eventId?: string;
  resourceId?: string;
  since?: string;
  until?: string;
}
/** An id as the API makes them: a prefix and a ULID (so a resource id is safe inside a text search). */
const anId = (prefix: string) =>
  Joi.string()
    .pattern(new RegExp(`^${prefix}_[0-9A-Za-z]{1,40}$`))
    .messages({ 'string.pattern.base': `{{#label}} must be an id like ${prefix}_01J...` });
export const listDeliveriesQuery = Joi.object<PageParams<'createdAt'> & DeliveryFilters, true>({
  status: Joi.string().valid(...Object.values(DeliveryStatus)),
  event: Joi.string().valid(...EVENT_TYPES),
  deliveryId: anId('dlv').description("The delivery with this id (a webhook body's `deliveryId`)"),
  eventId: anId('evt').description('Deliveries of this event'),
  resourceId: anId('[a-z]{3}').description("Deliveries whose event's `data.id` is this resource (a task, project, member, comment or file)"),
  since: fields.timestamp().description('Deliveries created at or after this time'),
  until: fields.timestamp().description('Deliveries created before this time'),
  ...pageQuery(deliveryOrder),
});
export const testWebhookBody = Joi.object<{ event?: string }, true>({ event: Joi.string().valid(...EVENT_TYPES) });
