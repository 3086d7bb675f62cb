import type Joi from 'joi';

export type JsonSchema = Record<string, unknown>;

/** Converts a joi schema with a well-kept converter; schemas named with `.id()` land in `components.schemas`. */
export function toJsonSchema(schema: Joi.Schema, components: Record<string, JsonSchema>): JsonSchema {
  // Loaded on the first conversion (with lodash, under it): the document and the event catalog are
  // built when first asked for, and most processes never ask.
  const parse = require('joi-to-json') as typeof import('joi-to-json').default;
  const converted = parse(schema as never, 'open-api-3.1', components) as JsonSchema & { schemas?: Record<string, JsonSchema> };
  // The converter returns the shared schemas beside a top-level $ref; they belong in components.
  const { schemas, ...rest } = converted;
  Object.assign(components, schemas ?? {});
  for (const schema of Object.values(components)) rewritePatternMaps(schema);
  rewritePatternMaps(rest);
  return rest;
}

/**
 * joi-to-json writes `Joi.object().pattern(/re/, value)` as `patternProperties` with
 * `additionalProperties: false` (and echoes it as a property literally named "/re/", which does not
 * exist). Valid, but client generators read "no additional properties" and give the map no values
 * at all (zod: `z.record(z.string(), z.never())`). A map with one key pattern and no named keys
 * says the same with `propertyNames` and `additionalProperties`, which they understand: every key
 * matches the pattern, every value the value schema.
 */
function rewritePatternMaps(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as JsonSchema & { properties?: Record<string, unknown>; patternProperties?: Record<string, unknown> };
  if (schema.properties && schema.patternProperties) {
    for (const pattern of Object.keys(schema.patternProperties)) delete schema.properties[`/${pattern}/`];
  }
  const patterns = Object.entries(schema.patternProperties ?? {});
  if (patterns.length === 1 && schema.additionalProperties === false && Object.keys(schema.properties ?? {}).length === 0) {
    const [[pattern, value]] = patterns as [[string, unknown]];
    delete schema.properties;
    delete schema.patternProperties;
    Object.assign(schema, { propertyNames: { pattern }, additionalProperties: value });
  }
  for (const child of Object.values(node)) rewritePatternMaps(child);
}
