/**
 * A subscription's filter (docs/webhooks.md#filters): clauses over the event's `data`, keyed by dotted
 * path, every one of which must match. Checked and compiled once, when the subscription is written,
 * into a Postgres jsonpath that the one subscription-match definition (`"Webhook_wants"`) evaluates
 * with `@@` where the fan-out, the outbox trigger and recovery decide who gets an event: the rule
 * lives in that SQL alone, and the fan-out parses nothing per event.
 */
import { parseTimestamp } from '../../http/fields';

/** docs/decisions.md#subscriber-controls: the filter's JSON at most this many bytes. */
export const MAX_FILTER_BYTES = 4096;

const FILTER_OPERATORS = ['$in', '$ne', '$exists', '$gte', '$lte'] as const;
type Operator = (typeof FILTER_OPERATORS)[number];

type Scalar = string | number | boolean | null;

export type FilterCheck = { ok: true; jsonpath: string | null } | { ok: false; message: string };

class FilterError extends Error {}

// The form every timestamp in event data has (`toISOString()`); only such strings compare as timestamps.
const SERVICE_TIMESTAMP = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$';

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const describe = (value: unknown): string =>
  Array.isArray(value) ? 'an array' : value === null ? 'null' : isPlainObject(value) ? 'an object' : `a ${typeof value}`;

function scalar(value: unknown, where: string): Scalar {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new FilterError(`${where} must be a finite number`);
    return value;
  }
  // NUL and unpaired surrogates, which no event's data can hold, are refused with the request (validation.ts).
  if (typeof value === 'string') return value;
  throw new FilterError(`${where} must be a string, number, boolean or null, not ${describe(value)}`);
}

/** A jsonpath literal: JSON's string and number syntax is jsonpath's. */
const literal = (value: Scalar): string => JSON.stringify(value);

const JSON_TYPE = { string: 'string', number: 'number', boolean: 'boolean' } as const;

/** `@` equals the value, with its type checked first, so that no comparison is of mismatched types (which jsonpath calls unknown). */
function equals(value: Scalar): string {
  if (value === null) return '@.type() == "null"';
  return `@.type() == "${JSON_TYPE[typeof value as keyof typeof JSON_TYPE]}" && @ == ${literal(value)}`;
}

function bound(operator: '$gte' | '$lte', operand: unknown, where: string): string {
  const comparison = operator === '$gte' ? '>=' : '<=';
  if (typeof operand === 'number' && Number.isFinite(operand)) return `@.type() == "number" && @ ${comparison} ${literal(operand)}`;
  if (typeof operand === 'string') {
    const timestamp = parseTimestamp(operand);
    if (timestamp === null) throw new FilterError(`${where} must be a number or an RFC 3339 timestamp, not ${JSON.stringify(operand)}`);
    // Timestamps in event data are all UTC, to the millisecond: in that one form, compared as strings, they compare in time.
    return `@.type() == "string" && @ like_regex ${literal(SERVICE_TIMESTAMP)} && @ ${comparison} ${literal(timestamp.toISOString())}`;
  }
  throw new FilterError(`${where} must be a number or an RFC 3339 timestamp, not ${describe(operand)}`);
}

const anyValue = (path: string, condition: string) => `exists(${path} ? (${condition}))`;

function operatorCondition(path: string, operator: Operator, operand: unknown, where: string): string {
  switch (operator) {
    case '$in': {
      if (!Array.isArray(operand) || operand.length === 0) throw new FilterError(`${where} must be a non-empty array`);
      const values = operand.map((value, i) => scalar(value, `${where}[${i}]`));
      return anyValue(path, values.map((value) => `(${equals(value)})`).join(' || '));
    }
    case '$ne':
      return `!(${anyValue(path, equals(scalar(operand, where)))})`;
    case '$exists':
      if (typeof operand !== 'boolean') throw new FilterError(`${where} must be true or false`);
      return operand ? `exists(${path})` : `!(exists(${path}))`;
    case '$gte':
    case '$lte':
      return anyValue(path, bound(operator, operand, where));
  }
}

function clauseConditions(key: string, clause: unknown): string[] {
  const segments = key.split('.');
  if (key.length === 0 || segments.some((segment) => segment.length === 0)) {
    throw new FilterError(`filter key ${JSON.stringify(key)} must be a dotted path of non-empty names`);
  }
  const path = `$${segments.map((segment) => `.${literal(segment)}`).join('')}`;
  const where = `filter.${key}`;
  if (!isPlainObject(clause)) {
    if (Array.isArray(clause)) throw new FilterError(`${where} must be a value or an operator object, not an array (for one of several values use $in)`);
    return [anyValue(path, equals(scalar(clause, where)))];
  }
  const operators = Object.keys(clause);
  if (operators.length === 0) throw new FilterError(`${where} must name an operator: ${FILTER_OPERATORS.join(', ')}`);
  return operators.map((operator) => {
    if (!(FILTER_OPERATORS as readonly string[]).includes(operator)) {
      throw new FilterError(
        operator.startsWith('$')
          ? `${where} has unknown operator ${operator}; use one of ${FILTER_OPERATORS.join(', ')}`
          : `${where} must be a value or an operator object; for a nested field write the dotted path ${key}.${operator}`,
      );
    }
    return operatorCondition(path, operator as Operator, clause[operator], `${where}.${operator}`);
  });
}

/**
 * Checks a filter and compiles it to a jsonpath predicate (null for `{}`, which matches everything),
 * or says what is wrong with it, naming the clause.
 */
export function compileFilter(filter: unknown): FilterCheck {
  try {
    if (!isPlainObject(filter)) throw new FilterError(`filter must be an object, not ${describe(filter)}`);
    const bytes = Buffer.byteLength(JSON.stringify(filter));
    if (bytes > MAX_FILTER_BYTES) throw new FilterError(`filter must be at most ${MAX_FILTER_BYTES} bytes of JSON, not ${bytes}`);
    const conditions = Object.entries(filter).flatMap(([key, clause]) => clauseConditions(key, clause));
    return { ok: true, jsonpath: conditions.length === 0 ? null : conditions.join(' && ') };
  } catch (err) {
    if (err instanceof FilterError) return { ok: false, message: err.message };
    throw err;
  }
}
