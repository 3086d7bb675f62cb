import Joi from 'joi';

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
