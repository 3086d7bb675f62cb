import Joi from 'joi';
import { invalid } from './errors';

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

/** Validates one part of a request; the first problem becomes a 400 naming the offending field. */
export function validate<T>(schema: Joi.Schema<T>, value: unknown, options: Joi.ValidationOptions = {}): T {
  const result = schema.validate(value, { abortEarly: true, allowUnknown: false, errors: { wrap: { label: false } }, ...options });
  if (result.error) {
    const detail = result.error.details[0]!;
    const param = detail.path.length > 0 ? detail.path.join('.') : null;
    throw invalid(param, describe(detail, param ?? 'body'));
  }
  return result.value;
}

/** Common field schemas. */
export const fields = {
  /** An id the caller names in a body or query; an id of no such record is refused where it is used. */
  ref: () => Joi.string().min(1).max(100),
  timestamp: () => Joi.string().isoDate().messages({ 'string.isoDate': '{{#label}} must be an ISO 8601 timestamp' }),
};
