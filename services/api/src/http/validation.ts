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
  id: (prefix: string) => Joi.string().pattern(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`)).messages({ 'string.pattern.base': `{{#label}} must be a ${prefix}_ id` }),
  /** An id the caller supplies in a body; a well-formed id of the wrong shape is still only "not found". */
  ref: () => Joi.string().min(1).max(100),
  timestamp: () => Joi.string().isoDate().messages({ 'string.isoDate': '{{#label}} must be an ISO 8601 timestamp' }),
  text: (max: number) => Joi.string().max(max),
};
