import Joi from 'joi';
import type { TenantData, TenantTx } from '@worktrack/db';
import type { Tenant } from './http/auth';
import { assertIfMatch, etagOf } from './http/conditional';
import { forbidden, invalid } from './http/errors';
import type { Permission } from './http/permissions';
import type { AuthenticatedRoute, Caller, ReceivedUpload, Resource } from './http/route';

import { assertWriteRules, type Named } from './write-rules';

function describe(detail: Joi.ValidationErrorItem, param: string): string {
  switch (detail.type) {
    case 'any.required':
      return `Missing required field: ${param}`;
    case 'object.unknown':
      return `Unknown field: ${param}`;
    default:
      return detail.message;
  }
}

/** NUL, which Postgres refuses in text and jsonb, and unpaired UTF-16 surrogates, which are not text at all. */
const UNSTORABLE = /[\0\p{Cs}]/u;

interface Node {
  value: unknown;
  key: string;
  parent: Node | null;
}

const pathOf = (node: Node): string => {
  const keys: string[] = [];
  for (let n: Node | null = node; n?.parent; n = n.parent) keys.unshift(n.key);
  return keys.join('.');
};

/**
 * Refuses a string or key that cannot be stored, and a `__proto__` key (joi would drop it
 * silently rather than call it unknown). Walks without recursion, so a deeply nested body
 * cannot exhaust the stack.
 */
function assertStorable(value: unknown): void {
  const pending: Node[] = [{ value, key: '', parent: null }];
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (typeof node.value === 'string' && UNSTORABLE.test(node.value)) {
      const param = pathOf(node);
      throw invalid(param || null, `${param || 'The value'} contains a NUL character or an unpaired UTF-16 surrogate`);
    }
    if (typeof node.value !== 'object' || node.value === null) continue;
    for (const [key, child] of Object.entries(node.value)) {
      const entry = { value: child, key, parent: node };
      if (key === '__proto__') throw invalid(pathOf(entry), `Unknown field: ${pathOf(entry)}`);
      if (UNSTORABLE.test(key)) throw invalid(pathOf(node) || null, 'A field name contains a NUL character or an unpaired UTF-16 surrogate');
      pending.push(entry);
    }
  }
}

/**
 * Joi's wordings that read like a machine's ("length must be less than or equal to 500 characters long"), said plainly.
 * Compiled once: given as strings, joi parses them again on every validation (most of a bulk request's CPU).
 */
const PLAIN_MESSAGES = compiled({
  'string.max': '{{#label}} must be at most {{#limit}} characters',
  'string.min': '{{#label}} must be at least {{#limit}} characters',
  'string.empty': '{{#label}} must not be empty',
  'string.uri': '{{#label}} must be an absolute URL',
  'string.email': '{{#label}} must be an email address',
  'number.max': '{{#label}} must be at most {{#limit}}',
  'number.min': '{{#label}} must be at least {{#limit}}',
  'number.integer': '{{#label}} must be a whole number',
  'array.max': '{{#label}} must have at most {{#limit}} items',
  'array.min': '{{#label}} must have at least {{#limit}} items',
  'object.max': '{{#label}} must have at most {{#limit}} keys',
});

function compiled(messages: Record<string, string>): Joi.LanguageMessages {
  return Object.fromEntries(Object.entries(messages).map(([code, text]) => [code, Joi.expression(text)])) as unknown as Joi.LanguageMessages;
}

/** Validates one part of a request; the first problem becomes a 400 naming the offending field. */
export function validate<T>(schema: Joi.Schema<T>, value: unknown, options: Joi.ValidationOptions = {}): T {
  assertStorable(value);
  const result = schema.validate(value, { abortEarly: true, allowUnknown: false, errors: { wrap: { label: false } }, messages: PLAIN_MESSAGES, ...options });
  if (result.error) {
    const detail = result.error.details[0]!;
    const param = detail.path.length > 0 ? detail.path.join('.') : null;
    throw invalid(param, describe(detail, param ?? 'body'));
  }
  return result.value;
}

/** An operation's input as its caller gives it, not yet validated. */
export interface OperationRequest {
  params?: object;
  query?: object;
  body?: unknown;
  /** The If-Match of a write to a locked record (HTTP only). */
  ifMatch?: string | undefined;
}

/** An operation whose caller may perform it and whose input is valid, ready to run (once). */
export interface PreparedOperation<P, Q, B, Res> {
  params: P;
  query: Q;
  body: B;
  /** What it names that the write rules check (a bulk request checks all its items' at once). */
  named: Named | undefined;
  /** Runs it: commits its change and events through `commit` (by default its tenant's own transaction). */
  run(commit?: TenantData['commitWithEvents']): Promise<Res>;
  /** Once the caller is done with it: removes an upload that was not kept (the operation failed or never ran). */
  settle(): Promise<void>;
}

const nothing = Joi.object({});

export function assertPermission(tenant: Tenant, permission: Permission): void {
  if (!tenant.permissions.has(permission)) {
    throw forbidden(`This API key lacks the ${permission} permission, or its user's role does not allow it`);
  }
}

/** A request's path parameters, query and JSON body, validated against its route's declaration (400 naming the field). */
export function validateInput<P, Q, B>(
  route: { params?: Joi.ObjectSchema<P>; query?: Joi.ObjectSchema<Q>; body?: Joi.ObjectSchema<B> },
  request: OperationRequest,
): { params: P; query: Q; body: B } {
  return {
    params: validate(route.params ?? nothing, request.params ?? {}) as P,
    query: validate(route.query ?? nothing, request.query ?? {}) as Q,
    body: validate(route.body ?? nothing, request.body ?? {}) as B,
  };
}

/** A multipart body: its file part received (streamed to the store), then the file's name and the text fields validated. */
async function receiveMultipart(route: AuthenticatedRoute, caller: Caller): Promise<{ body: unknown; upload: ReceivedUpload }> {
  const multipart = route.multipart!;
  const upload = await multipart.receive(caller);
  try {
    if (!upload.file) throw invalid(multipart.file, `Missing required field: ${multipart.file}`);
    validate(multipart.fileName, { [multipart.file]: upload.file.originalname });
    return { body: validate(multipart.fields, upload.fields ?? {}), upload };
  } catch (err) {
    await upload.discard();
    throw err;
  }
}

/**
 * The one path of every operation, whoever calls it (an API request, a dashboard form, a bulk
 * item): the permission checked once, then the path, query and body validated against the route's
 * declaration (400 naming the field), then the write rules on what the body names (400 naming the
 * field); the result runs the operation with the caller known to it.
 * The media type was decided before, where the body was read (`readBody`).
 */
export async function prepareOperation<P, Q, B, R, Res>(
  route: AuthenticatedRoute<P, Q, B, R, Res>,
  caller: Caller,
  request: OperationRequest = {},
  options: { rules?: 'checked by the caller' } = {},
): Promise<PreparedOperation<P, Q, B, Res>> {
  assertPermission(caller.tenant, route.permission);
  const { params, query, body: json } = validateInput(route, request);
  const { body, upload } = route.multipart ? await receiveMultipart(route as AuthenticatedRoute, caller) : { body: json, upload: undefined };
  const named = route.references?.(body as B);
  let kept = false;
  return {
    named,
    params,
    query,
    body: body as B,
    async run(commit) {
      const data = caller.deps.data(caller.tenant);
      // In the run, not before it: a refusal read from the data is the operation's answer, which an
      // Idempotency-Key replays (a refused upload's object is removed by settle).
      if (named && options.rules !== 'checked by the caller') await assertWriteRules(data, named);
      const idOf = (resource: Resource<R>) => (params as Record<string, string>)[resource.param]!;
      const resource = route.resource ? await route.resource.load(data, idOf(route.resource)) : (undefined as R);
      const lock = async (tx: TenantTx): Promise<R> => {
        if (!route.locks) throw new Error(`${route.method} ${route.path} locks no resource`);
        const locked = typeof route.locks === 'function' ? route.locks(params) : route.locks;
        const row = await locked.lock(tx, idOf(locked));
        assertIfMatch(request.ifMatch, etagOf(locked.toRecord(row)));
        return row;
      };
      const result = await route.handler({
        params,
        query,
        body: body as B,
        resource,
        lock,
        commit: commit ?? data.commitWithEvents,
        upload,
        ...caller,
      });
      kept = true;
      return result;
    },
    async settle() {
      if (upload && !kept) await upload.discard();
    },
  };
}

/** Prepares and runs an operation: how the dashboard reads and changes anything, with the API's rules and errors. */
export async function callOperation<P, Q, B, R, Res>(route: AuthenticatedRoute<P, Q, B, R, Res>, caller: Caller, request?: OperationRequest): Promise<Res> {
  const operation = await prepareOperation(route, caller, request);
  try {
    return await operation.run();
  } finally {
    await operation.settle();
  }
}
