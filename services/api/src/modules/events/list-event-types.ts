import Joi from 'joi';
import { EVENT_DESCRIPTIONS, EVENT_TYPES, type EventType } from '@worktrack/events';
import { definePublicRoute } from '../../http/route';
import { eventDataSchema, sampleDeliveryBody } from '../../openapi/webhook-entries';

export interface EventTypeRecord {
  type: EventType;
  description: string;
  schema: Record<string, unknown>;
  example: Record<string, unknown>;
}

const eventTypeSchema = Joi.object<EventTypeRecord, true>({
  type: Joi.string()
    .valid(...EVENT_TYPES)
    .required(),
  description: Joi.string().required(),
  schema: Joi.object().unknown(true).required().description("The JSON Schema of the event's `data`"),
  example: Joi.object().unknown(true).required().description('A sample delivery body of this type'),
}).id('EventType');

let catalog: EventTypeRecord[] | undefined;

/**
 * Built once, when first asked for: the catalog is the same for everyone and never changes while the
 * service runs, and converting its twenty schemas is work most processes never need.
 */
export function eventCatalog(): EventTypeRecord[] {
  catalog ??= EVENT_TYPES.map((type) => ({
    type,
    description: EVENT_DESCRIPTIONS[type],
    schema: eventDataSchema(type),
    example: sampleDeliveryBody(type),
  }));
  return catalog;
}

/** The event catalog (docs/decisions.md#email-and-invitations): public, as the OpenAPI document is. */
export const listEventTypes = definePublicRoute({
  operationId: 'listEventTypes',
  method: 'get',
  path: '/event-types',
  summary: 'List the event types',
  description:
    'Needs no API key. The 20 event types a subscription can receive, each with what it means, the JSON Schema of its `data` and a sample delivery body.',
  tag: 'Events',
  status: 200,
  response: Joi.object<{ data: EventTypeRecord[] }, true>({ data: Joi.array().items(eventTypeSchema).required() }).id('EventTypeList'),
  handler: async () => ({ data: eventCatalog() }),
});
