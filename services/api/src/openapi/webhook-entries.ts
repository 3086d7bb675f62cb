import Joi from 'joi';
import { EVENT_TYPES, sampleEvents, type EventType } from '@worktrack/events';
import { out } from '../http/record-fields';
import { actorSchema } from '../modules/events/actor-schema';
import { commentRecordSchema } from '../modules/comments/comment-record';
import { fileRecordSchema } from '../modules/files/file-record';
import { labelRecordSchema } from '../modules/labels/label-record';
import { memberRecordSchema } from '../modules/members/member-record';
import { projectRecordSchema } from '../modules/projects/project-record';
import { relationEventRecordSchema } from '../modules/relations/relation-record';
import { taskRecordSchema } from '../modules/tasks/task-record';
import { toJsonSchema, type JsonSchema } from './json-schema';

/** What each event's `data` is: the record as the API returns it; updates add the changed fields' old values. */
const DATA: Record<EventType, () => Joi.ObjectSchema> = {
  'task.created': () => taskRecordSchema,
  'task.updated': () => withPrevious(taskRecordSchema),
  'task.deleted': () => taskRecordSchema,
  'task.completed': () => taskRecordSchema,
  'project.created': () => projectRecordSchema,
  'project.updated': () => withPrevious(projectRecordSchema),
  'project.deleted': () => projectRecordSchema,
  'member.added': () => memberRecordSchema,
  'member.removed': () => memberRecordSchema,
  'member.role_changed': () => withPrevious(memberRecordSchema),
  'comment.created': () => commentRecordSchema,
  'comment.updated': () => withPrevious(commentRecordSchema),
  'comment.deleted': () => commentRecordSchema,
  'file.uploaded': () => fileRecordSchema,
  'file.deleted': () => fileRecordSchema,
  'label.created': () => labelRecordSchema,
  'label.updated': () => withPrevious(labelRecordSchema),
  'label.deleted': () => labelRecordSchema,
  'relation.created': () => relationEventRecordSchema,
  'relation.deleted': () => relationEventRecordSchema,
};

const dataSchemas = new Map<EventType, Joi.ObjectSchema>();

/** The schema of an event's `data`, made on first use: only the OpenAPI document and the event catalog need them. */
function dataSchema(type: EventType): Joi.ObjectSchema {
  let schema = dataSchemas.get(type);
  if (!schema) {
    schema = DATA[type]();
    dataSchemas.set(type, schema);
  }
  return schema;
}

function withPrevious(record: Joi.ObjectSchema): Joi.ObjectSchema {
  const name = (record.describe().flags as { id?: string } | undefined)?.id?.replace(/Record$/, '') ?? 'Record';
  return record.id(`${name}Changed`).keys({
    previousAttributes: Joi.object().unknown(true).required().description("The changed fields' values before the change"),
  });
}

function deliveryBody(type: EventType): Joi.ObjectSchema {
  return Joi.object({
    event: Joi.string().valid(type).required(),
    timestamp: out.timestamp().description('When the event happened; orders deliveries, which can arrive in any order'),
    webhookId: out.id('whk'),
    deliveryId: out.id('dlv').description('Stable across retries and redeliveries: deduplicate on it'),
    actor: actorSchema,
    data: dataSchema(type).required(),
    organization: Joi.object({ id: out.id('org'), name: Joi.string().required() }).required(),
    test: Joi.boolean().valid(true).description('Present on sample deliveries of POST /webhooks/{id}/test'),
  });
}

const SIGNATURE_HEADERS = [
  ['X-Service-Signature', 'sha256=<hex HMAC-SHA256 of the raw body, keyed with the secret>'],
  ['X-Service-Event', 'The event type'],
  ['X-Service-Delivery', 'The deliveryId'],
  ['webhook-id', 'Standard Webhooks: the deliveryId'],
  ['webhook-timestamp', 'Standard Webhooks: Unix seconds of this attempt'],
  ['webhook-signature', 'Standard Webhooks: v1,<base64 HMAC-SHA256 of "id.timestamp.body">; two during a secret rotation'],
] as const;

/** A delivery's body as a receiver gets it, with sample values. */
export const sampleDeliveryBody = (type: EventType) => ({
  event: type,
  timestamp: '2026-01-01T00:00:00.000Z',
  webhookId: 'whk_sample',
  deliveryId: 'dlv_sample',
  actor: { type: 'user', userId: 'usr_sample', apiKeyId: 'key_sample' },
  data: sampleEvents[type].data,
  organization: { id: 'org_sample', name: 'Acme' },
});

/** The JSON Schema of an event's `data`, standing alone: the records it refers to under its own `$defs`. */
export function eventDataSchema(type: EventType): JsonSchema {
  const definitions: Record<string, JsonSchema> = {};
  const root = toJsonSchema(dataSchema(type), definitions);
  const local = (schema: JsonSchema) => JSON.parse(JSON.stringify(schema).replaceAll('#/components/schemas/', '#/$defs/')) as JsonSchema;
  return { ...local(root), $defs: local(definitions) };
}

/** `member.role_changed` → `memberRoleChanged`: the event type, as the name generated clients give its payload. */
const operationId = (type: EventType): string => type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase());

/** The `webhooks` section: one entry per event type, the POST a subscriber receives. */
export function webhookEntries(components: Record<string, JsonSchema>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: operationId(type),
          summary: `${type} delivery`,
          description: 'Any 2xx within 5 s is success; otherwise retried 1 min, 5 min, 15 min, 1 h, 3 h and 6 h later, with the same deliveryId and body.',
          parameters: SIGNATURE_HEADERS.map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: toJsonSchema(deliveryBody(type), components),
                example: sampleDeliveryBody(type),
              },
            },
          },
          responses: { '2XX': { description: 'Received' } },
        },
      },
    ]),
  );
}
