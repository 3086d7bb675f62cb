import Joi from 'joi';

/** Settings a service cannot start with; its message is the one line a start prints (describeStartupError). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

declare const unset: unique symbol;
type MaybeUnset = { readonly [unset]: true };

/**
 * A setting with no default: undefined after validation unless it is set (or a `when` requires it),
 * and typed so. Every other setting has a default; test/env-schema.unit.test.ts holds them to that,
 * through the `optional` flag this sets.
 */
export const maybeUnset = <S extends Joi.AnySchema>(schema: S) => schema.optional() as S & MaybeUnset;

/** A string setting that is one of `values`, typed as their union. */
export const oneOf = <V extends string>(...values: V[]) => Joi.string<V>().valid(...values);

type SettingValue<S> = S extends Joi.AnySchema<infer T> ? (S extends MaybeUnset ? T | undefined : T) : never;

/** The environment as validation returns it, typed from the settings' schemas. */
export type EnvOf<Settings> = { [Name in keyof Settings]: SettingValue<Settings[Name]> };

/** The schema of a service's environment, typed with what its validation returns. */
export const envSchema = <Settings extends Record<string, Joi.AnySchema>>(settings: Settings): Joi.ObjectSchema<EnvOf<Settings>> => Joi.object(settings);

/** Validates the environment against a schema once, at boot, and fails fast with every problem listed. */
export function parseEnv<Env>(schema: Joi.ObjectSchema<Env>, env: NodeJS.ProcessEnv = process.env): Env {
  const { value, error } = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  if (error) throw new ConfigError(`Invalid configuration: ${error.details.map((d) => d.message).join('; ')}`);
  return value;
}
