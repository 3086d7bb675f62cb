import type Joi from 'joi';
import parse from 'joi-to-json';

export type JsonSchema = Record<string, unknown>;

/** Converts a joi schema with a well-kept converter; schemas named with `.id()` land in `components.schemas`. */
export function toJsonSchema(schema: Joi.Schema, components: Record<string, JsonSchema>): JsonSchema {
  const converted = parse(schema as never, 'open-api-3.1', components) as JsonSchema & { schemas?: Record<string, JsonSchema> };
  // The converter returns the shared schemas beside a top-level $ref; they belong in components.
  const { schemas, ...rest } = converted;
  Object.assign(components, schemas ?? {});
  for (const schema of Object.values(components)) dropPatternEchoes(schema);
  dropPatternEchoes(rest);
  return rest;
}

/**
 * joi-to-json writes `Joi.object().pattern(/re/, value)` correctly as `patternProperties`, but also
 * echoes it as a property literally named "/re/"; that property does not exist.
 */
function dropPatternEchoes(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as { properties?: Record<string, unknown>; patternProperties?: Record<string, unknown> };
  if (schema.properties && schema.patternProperties) {
    for (const pattern of Object.keys(schema.patternProperties)) delete schema.properties[`/${pattern}/`];
  }
  for (const child of Object.values(node)) dropPatternEchoes(child);
}
