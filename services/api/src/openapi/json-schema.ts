import type Joi from 'joi';
import parse from 'joi-to-json';

export type JsonSchema = Record<string, unknown>;

/** Converts a joi schema with a well-kept converter; schemas named with `.id()` land in `components.schemas`. */
export function toJsonSchema(schema: Joi.Schema, components: Record<string, JsonSchema>): JsonSchema {
  const converted = parse(schema as never, 'open-api-3.1', components) as JsonSchema & { schemas?: Record<string, JsonSchema> };
  // The converter returns the shared schemas beside a top-level $ref; they belong in components.
  const { schemas, ...rest } = converted;
  Object.assign(components, schemas ?? {});
  return rest;
}

