import express, { type RequestHandler } from 'express';
import Joi from 'joi';
import { ApiError, invalid } from './errors';

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

/** Validates one part of a request; the first problem becomes a 400 naming the offending field. */
export function validate<T>(schema: Joi.Schema<T>, value: unknown, options: Joi.ValidationOptions = {}): T {
  assertStorable(value);
  const result = schema.validate(value, { abortEarly: true, allowUnknown: false, errors: { wrap: { label: false } }, ...options });
  if (result.error) {
    const detail = result.error.details[0]!;
    const param = detail.path.length > 0 ? detail.path.join('.') : null;
    throw invalid(param, describe(detail, param ?? 'body'));
  }
  return result.value;
}

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|([+-])(\d\d):(\d\d))$/i;

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/**
 * docs/decisions.md#ids-and-timestamps: an RFC 3339 date-time with a real calendar date and a time zone, naming an
 * instant within the years 0001-9999 in UTC too (Postgres, Prisma and ISO 8601 output agree
 * there); the instant, or null when the text is anything else.
 */
export function parseTimestamp(text: string): Date | null {
  const match = RFC3339.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [offsetHours, offsetMinutes] = [Number(match[9] ?? 0), Number(match[10] ?? 0)];
  const realDate = year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
  if (!realDate || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;

  const millis = (match[7] ?? '').padEnd(3, '0').slice(0, 3);
  const wallClock = Date.parse(`${match.slice(1, 4).join('-')}T${match.slice(4, 7).join(':')}.${millis}Z`);
  const offsetMs = (match[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const instant = new Date(wallClock - offsetMs);
  const utcYear = instant.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? instant : null;
}

/** Joi's arrays, also read from one comma-separated string: how a query parameter carries a list. */
const commaSeparated = Joi.extend((joi) => ({
  type: 'array',
  base: joi.array(),
  coerce: { from: 'string', method: (value: string) => ({ value: value.split(',') }) },
}));

/** An array's errors named after the array, not the item (`labelIds`, not `labelIds.1`). */
const namingTheArray = (errors: Joi.ErrorReport[]) => errors.map((error) => Object.assign(error, { path: error.path.slice(0, 1) }));

/** Common field schemas. */
export const fields = {
  /** A list in one query parameter, comma-separated (`status=todo,in_progress`); an error names the parameter, not the item. */
  list: (item: Joi.Schema) => commaSeparated.array().items(item).min(1).max(100).error(namingTheArray),
  /** Distinct ids in a body, at most `max`, kept sorted; an error names the field, not the item. */
  refSet: (max: number) =>
    Joi.array()
      .items(Joi.string().min(1).max(100))
      .max(max)
      .unique()
      .custom((ids: string[]) => [...ids].sort())
      .error(namingTheArray),
  /** An id the caller names in a body or query; an id of no such record is refused where it is used. */
  ref: () => Joi.string().min(1).max(100),
  /**
   * A timestamp, handed over in its canonical form: UTC with milliseconds. Declared
   * `format: date-time` in the OpenAPI document; the check itself is stricter (docs/decisions.md#ids-and-timestamps).
   */
  timestamp: () =>
    Joi.string()
      .meta({ format: 'date-time' })
      .custom((text: string, helpers) => parseTimestamp(text)?.toISOString() ?? helpers.error('timestamp.format'))
      .messages({
        'timestamp.format': '{{#label}} must be an RFC 3339 date-time with a time zone in the years 0001-9999, such as 2026-11-21T10:00:00Z',
      }),
};

const parseJson = express.json({ limit: '1mb' });

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/**
 * Parses JSON bodies and refuses any other media type on writes; multipart is left to the
 * routes that accept uploads. A write without a body is read as `{}`.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!hasBody(req.headers)) {
    req.body = {};
    return next();
  }
  if (req.is('multipart/form-data')) return next();
  // Only what express.json parses: an application/*+json body would be left unread, as if empty.
  if (!req.is('application/json')) {
    return next(new ApiError('unsupported_media_type', 'Request bodies must be application/json'));
  }
  parseJson(req, res, next);
};
