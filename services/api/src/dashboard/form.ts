import type { Request } from 'express';

/** A submitted urlencoded form: each field once, or several times for checkboxes. */
export type Form = Record<string, string | string[] | undefined>;

export const formOf = (req: Request): Form => (req.body ?? {}) as Form;

/** A single text field, trimmed; '' when absent. */
export function text(form: Form, name: string): string {
  const value = form[name];
  return (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).trim();
}

/** Every value of a repeated field (checkboxes). */
export function list(form: Form, name: string): string[] {
  const value = form[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** An optional text field: omitted when empty. */
export const optional = (value: string) => (value === '' ? undefined : value);

/** A clearable text field of an edit form: null when emptied. */
export const orNull = (value: string) => (value === '' ? null : value);

/**
 * A number typed into a form, as the API's JSON number; anything else (empty: undefined or null, as
 * `optional` or `orNull` made it; not a number) goes through unchanged, for the API's validation to name.
 */
export function numeric<T extends string | null | undefined>(value: T): number | T {
  return typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value) ? Number(value) : value;
}

/**
 * A date or date-time typed into a form, as the API's RFC 3339 timestamp in UTC (the forms say so):
 * `2026-12-01` is that day's midnight, `2026-12-01T10:30` that minute. Anything else goes through
 * unchanged, for the API's validation to name.
 */
export function utcTimestamp(value: string): string {
  if (/^\d{4}-\d\d-\d\d$/.test(value)) return `${value}T00:00:00Z`;
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(value)) return `${value}:00Z`;
  return value;
}

/** A query's string values (the list filters a page passes on to an operation and to its links). */
export function queryOf(req: Request, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = req.query[name];
    if (typeof value === 'string' && value !== '') picked[name] = value;
  }
  return picked;
}
