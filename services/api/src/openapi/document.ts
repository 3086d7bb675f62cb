import type Joi from 'joi';
import { ERROR_CODES, ERROR_TYPES, errorStatus, type ErrorCode } from '../http/errors';
import type { Permission } from '../http/permissions';
import { answersWithEtag, errorCodes, honoursIfMatch, readsOneRecord, type RouteDefinition } from '../http/route';
import { toJsonSchema, type JsonSchema } from './json-schema';
import { webhookEntries } from './webhook-entries';

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema>; headers: Record<string, JsonSchema> };
};

/** `/tasks/:taskId` → `/v1/tasks/{taskId}` */
const openApiPath = (path: string) => `/v1${path.replace(/:(\w+)/g, '{$1}')}`;

function parameters(route: RouteDefinition, components: Record<string, JsonSchema>): JsonSchema[] {
  const of = (schema: Joi.ObjectSchema | undefined, where: 'path' | 'query') => {
    if (!schema) return [];
    const described = toJsonSchema(schema, components) as { properties?: Record<string, JsonSchema>; required?: string[] };
    return Object.entries(described.properties ?? {}).map(([name, property]) => {
      const { description, ...propertySchema } = property as { description?: string };
      return {
        name,
        in: where,
        required: where === 'path' || (described.required ?? []).includes(name),
        schema: propertySchema,
        // A list goes in one parameter, comma-separated (`status=todo,done`).
        ...((propertySchema as { type?: string }).type === 'array' && { style: 'form', explode: false }),
        ...(description && { description }),
      };
    });
  };
  const idempotencyKey =
    route.kind === 'authenticated' && route.method === 'post'
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Repeats within 24 hours with the same body get the first response again (per API key); another body → 409.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ]
      : [];
  const conditional = [
    ...(readsOneRecord(route)
      ? [
          {
            name: 'If-None-Match',
            in: 'header',
            required: false,
            description: 'An ETag from an earlier answer: 304 with no body while the record is unchanged.',
            schema: { type: 'string' },
          },
        ]
      : []),
    ...(honoursIfMatch(route)
      ? [
          {
            name: 'If-Match',
            in: 'header',
            required: false,
            description: 'The ETag the change is based on: 412 `precondition_failed` if the record changed since.',
            schema: { type: 'string' },
          },
        ]
      : []),
  ];
  return [...of(route.params, 'path'), ...of(route.query, 'query'), ...idempotencyKey, ...conditional];
}

const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': { description: 'Identifies the request in the service’s logs; echoed when the client sent a sane one', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per UTC day for the organization', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left today', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix seconds of the next UTC midnight', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  ETag: {
    description: 'The entity tag of the record in the body (or, with 304, of the unchanged record): send it as If-None-Match or If-Match',
    required: true,
    schema: { type: 'string' },
  },
  Location: { description: 'The URL of the record created', required: true, schema: { type: 'string', format: 'uri' } },
  Allow: { description: 'The methods the path serves, comma-separated (`GET, POST`)', required: true, schema: { type: 'string' } },
};

/** The response headers an answer of this route and status carries. */
function responseHeaders(route: RouteDefinition, status: number): Record<string, { $ref: string }> {
  const names = ['X-Request-Id'];
  // A 431 (Node's parser) and a 405 (no route for the method) may come before authentication: only the request id is promised.
  if (status === 405) names.push('Allow');
  if (status === 405 || status === 431) return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  if (route.kind === 'authenticated' && status !== 401) names.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
  if (status === 429) names.push('Retry-After');
  if (route.kind === 'authenticated' && route.method === 'post' && status < 500) names.push('Idempotent-Replayed');
  if (status === 201) names.push('Location');
  if ((status === 200 || status === 304) && answersWithEtag(route)) names.push('ETag');
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function requestBody(route: RouteDefinition, components: Record<string, JsonSchema>): JsonSchema | undefined {
  if (route.multipart) {
    const fields = toJsonSchema(route.multipart.fields, components) as { properties?: Record<string, JsonSchema>; required?: string[] };
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            // OpenAPI 3.1 says binary content by its media type (`format: binary` is 3.0's way).
            properties: { ...fields.properties, [route.multipart.file]: { type: 'string', contentMediaType: 'application/octet-stream' } },
            required: [...(fields.required ?? []), route.multipart.file],
          },
        },
      },
    };
  }
  if (!route.body) return undefined;
  return { required: route.method === 'post', content: { 'application/json': { schema: toJsonSchema(route.body, components) } } };
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  304: 'Not modified: If-None-Match names the current ETag',
  400: 'Invalid request',
  401: 'Missing, malformed, unknown, revoked or expired API key',
  403: 'The key lacks the permission, or a plan quota is spent',
  404: 'Not found (also for another organization’s ids)',
  405: 'The path does not serve this method; Allow lists those it does',
  409: 'Conflict',
  412: 'The resource changed since the ETag given in If-Match',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Daily quota spent, or too many unknown keys from this address',
  431: 'The request line and headers exceed 16 KB',
  500: 'Internal error',
  503: 'A backing service is unavailable',
};

function responses(route: RouteDefinition, components: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const result: Record<string, JsonSchema> = {};
  result[String(route.status)] = {
    description: STATUS_TEXT[route.status],
    headers: responseHeaders(route, route.status),
    ...(route.response !== null && { content: { 'application/json': { schema: toJsonSchema(route.response, components) } } }),
  };
  if (readsOneRecord(route)) result['304'] = { description: STATUS_TEXT[304], headers: responseHeaders(route, 304) };

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(route)) byStatus.set(errorStatus(code), [...(byStatus.get(errorStatus(code)) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    result[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      headers: responseHeaders(route, status),
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/ErrorBody' }, { properties: { error: { properties: { code: { enum: codes } } } } }],
          },
        },
      },
    };
  }
  return result;
}

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Every non-2xx answer.',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'param', 'type'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: ERROR_CODES },
        message: { type: 'string' },
        param: { type: ['string', 'null'], description: 'The offending field, when there is one' },
        type: { type: 'string', enum: ERROR_TYPES },
        errors: {
          type: 'array',
          description: 'A bulk request that failed: each failing item, in item order',
          items: {
            type: 'object',
            required: ['index', 'code', 'param', 'message'],
            additionalProperties: false,
            properties: {
              index: { type: 'integer', minimum: 0, description: "The item's position in `operations`" },
              code: { type: 'string', enum: ERROR_CODES },
              param: { type: ['string', 'null'], description: 'The offending field of the item (`id`, `data.title`), when there is one' },
              message: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

/** docs/decisions.md#tenancy-and-keys: `events:read` is also held with `webhooks:read`, with which keys made before it existed read events. */
function needs(permission: Permission): string {
  if (permission === 'events:read') return 'Needs the `events:read` permission, which every role has (a key holding `webhooks:read` has it too).';
  return `Needs the \`${permission}\` permission.`;
}

function operationOf(route: RouteDefinition, components: Record<string, JsonSchema>): Record<string, unknown> {
  const body = requestBody(route, components);
  const permission = route.kind === 'authenticated' ? needs(route.permission) : 'Needs no API key.';
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: [route.description, permission].filter(Boolean).join('\n\n'),
    tags: [route.tag],
    ...(route.kind === 'public' && { security: [] }),
    ...(route.kind === 'authenticated' && { 'x-permission': route.permission }),
    parameters: parameters(route, components),
    ...(body && { requestBody: body }),
    responses: responses(route, components),
  };
}

/** A GET whose 200 is a stream of Server-Sent Events (`GET /events/stream`), not a JSON record: served by a handler of its own. */
export interface EventStreamDescription {
  operationId: string;
  path: string;
  summary: string;
  description: string;
  tag: string;
  permission: Permission;
  query: Joi.ObjectSchema;
  errors: ErrorCode[];
}

function streamOperationOf(stream: EventStreamDescription, components: Record<string, JsonSchema>): Record<string, unknown> {
  const route = { ...stream, kind: 'authenticated', method: 'get', status: 200, response: null } as unknown as RouteDefinition;
  const operation = operationOf(route, components) as { responses: Record<string, JsonSchema> };
  operation.responses['200'] = {
    ...operation.responses['200'],
    description: 'Server-Sent Events: each message has `id` (a feed cursor), `event` (the type) and `data` (the event as JSON)',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  };
  return operation;
}

/** `GET /v1/openapi.json`: OpenAPI 3.1, generated from the route definitions that validate requests and shape responses. */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], serverUrl: string, streams: readonly EventStreamDescription[] = []): OpenApiDocument {
  // Named so as not to shadow a global of the languages clients are generated in (`Error`, `File`).
  const components: Record<string, JsonSchema> = { ErrorBody: ERROR_SCHEMA };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[openApiPath(route.path)] ??= {})[route.method] = operationOf(route, components);
  for (const stream of streams) (paths[openApiPath(stream.path)] ??= {}).get = streamOperationOf(stream, components);
  const webhooks = webhookEntries(components);
  assertOperationIds([...Object.values(paths), ...Object.values(webhooks)]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'worktrack API',
      version: '1.0.0',
      description:
        'A multi-tenant work-tracking API that pushes signed webhooks. Every request but the public ones carries `Authorization: Bearer tk_live_...` (or `tk_test_...`). A POST may carry `Idempotency-Key`.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    webhooks,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key, `tk_live_...` or `tk_test_...`' } },
      headers: HEADERS,
      schemas: components,
    },
  };
}

const OPERATION_ID = /^[a-z][a-zA-Z0-9]{2,39}$/;

/**
 * Generated clients name a function after each operationId: every one short camelCase, and
 * unique across paths and webhooks (OpenAPI requires it). A duplicate fails at boot, not in a client.
 */
function assertOperationIds(pathItems: readonly Record<string, unknown>[]): void {
  const seen = new Set<string>();
  for (const operation of pathItems.flatMap((item) => Object.values(item) as { operationId?: string }[])) {
    const id = operation.operationId ?? '';
    if (!OPERATION_ID.test(id)) throw new Error(`operationId ${JSON.stringify(id)} is not short camelCase`);
    if (seen.has(id)) throw new Error(`operationId ${id} is used twice`);
    seen.add(id);
  }
}
