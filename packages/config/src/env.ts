import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import Joi from 'joi';
import type { LogFormat } from './logger';
import { redisEnv, redisSettings, type RedisSettings } from './redis-settings';

/** Mirrors `DatabasePooler` of @worktrack/db, which config does not depend on. */
type DatabasePooler = 'none' | 'pgbouncer';

/** Reads `.env` from the working directory, if present, without overriding real environment variables. */
export function loadDotEnv(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}

/** Settings a service cannot start with; its message is the one line a start prints (describeStartupError). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates the environment against a schema once, at boot, and fails fast with every problem listed. */
export function parseEnv<T>(schema: Joi.ObjectSchema, env: NodeJS.ProcessEnv = process.env): T {
  const { value, error } = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  if (error) throw new ConfigError(`Invalid configuration: ${error.details.map((d) => d.message).join('; ')}`);
  return value as T;
}

const csv = Joi.string().allow('').default('');

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const secretsKey = (name: string) =>
  Joi.string()
    .empty('')
    .pattern(/^[A-Za-z0-9+/]{43}=?$/)
    .messages({ 'string.pattern.base': `${name} must be base64 of 32 random bytes (openssl rand -base64 32)` });

/**
 * Outside production, with no SECRETS_KEY: a key derived from this fixed text, the same in every
 * process (the API seals, the worker opens) and across restarts, and therefore no protection at
 * all. Outside production it keeps opening what it sealed once SECRETS_KEY is set, so a developer
 * who sets one later loses nothing: the API's start seals those values again under SECRETS_KEY.
 */
const DEVELOPMENT_SECRETS_KEY = createHash('sha256').update('worktrack development SECRETS_KEY, known to everyone').digest();

const postgresUrl = Joi.string().uri({ scheme: ['postgresql', 'postgres'] });

export const commonEnv = {
  NODE_ENV: Joi.string(),
  SECRETS_KEY: secretsKey('SECRETS_KEY').when('NODE_ENV', { is: 'production', then: Joi.required() }).messages({
    'any.required':
      'SECRETS_KEY is required in production (NODE_ENV=production): base64 of 32 random bytes (openssl rand -base64 32), the same for the API and the worker',
  }),
  SECRETS_KEY_PREVIOUS: secretsKey('SECRETS_KEY_PREVIOUS'),
  DATABASE_URL: postgresUrl.default('postgresql://postgres:postgres@127.0.0.1:5432/worktrack'),
  // Postgres beyond one server (docs/decisions.md): what DATABASE_URL points at, and where the
  // migrations go when that is a pooler. DATABASE_DIRECT_URL is read by the migrate command
  // (prisma.config.mts); it is validated here so that a malformed one stops the services too.
  DATABASE_POOLER: Joi.string().valid('none', 'pgbouncer').default('none'),
  DATABASE_DIRECT_URL: postgresUrl.empty(''),
  ...redisEnv,
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  LOG_FORMAT: Joi.string().valid('json', 'pretty').default('json'),
  WEBHOOK_ALLOWED_HOSTS: csv,
  PUBLIC_BASE_URL: Joi.string().uri().default('http://127.0.0.1:3000'),
  SMTP_URL: Joi.string()
    .empty('')
    .uri({ scheme: ['smtp', 'smtps'] }),
  MAIL_FROM: Joi.string().default('worktrack <no-reply@localhost>'),
  MAIL_DIR: Joi.string().default('.data/mail'),
};

/** Where mail goes (docs/decisions.md#email-and-invitations): over SMTP, or with no SMTP_URL into a folder, its links logged. */
export interface MailSettings {
  smtpUrl: string | null;
  from: string;
  directory: string;
  /** With no SMTP_URL, whether the links of a mail are logged: outside production only, as they sign people in. */
  logLinks: boolean;
}

export interface CommonSettings extends RedisSettings {
  databaseUrl: string;
  /** `pgbouncer`: DATABASE_URL is PgBouncer in transaction pooling mode, so no statement is prepared by name. */
  databasePooler: DatabasePooler;
  logLevel: string;
  logFormat: LogFormat;
  webhookAllowedHosts: string[];
  /** The address people reach the API and its dashboard at: links in mails and sign-in links name it. */
  publicBaseUrl: string;
  mail: MailSettings;
  /**
   * Keys of the secrets sealed at rest (webhook signing secrets): the first seals, every one opens
   * what it sealed. SECRETS_KEY, then SECRETS_KEY_PREVIOUS, then (outside production) the
   * development key.
   */
  secretsKeys: Buffer[];
  /** SECRETS_KEY was unset (outside production): secrets are sealed under the development key, known to everyone. */
  secretsKeyDerived: boolean;
}

/** What both services log at boot when `secretsKeyDerived`. */
export const DERIVED_SECRETS_KEY_WARNING =
  'SECRETS_KEY is unset: webhook secrets are encrypted at rest under a development key that everyone can derive; set SECRETS_KEY (openssl rand -base64 32), the same for the API and the worker';

export function commonSettings(e: Record<string, any>): CommonSettings {
  return {
    databaseUrl: e.DATABASE_URL,
    databasePooler: e.DATABASE_POOLER,
    ...redisSettings(e),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    webhookAllowedHosts: splitList(e.WEBHOOK_ALLOWED_HOSTS),
    publicBaseUrl: e.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    mail: { smtpUrl: e.SMTP_URL ?? null, from: e.MAIL_FROM, directory: e.MAIL_DIR, logLinks: e.NODE_ENV !== 'production' },
    ...secretsKeys(e),
  };
}

function secretsKeys(e: Record<string, any>): Pick<CommonSettings, 'secretsKeys' | 'secretsKeyDerived'> {
  const decode = (key: string) => Buffer.from(key, 'base64');
  const keys = [e.SECRETS_KEY === undefined ? DEVELOPMENT_SECRETS_KEY : decode(e.SECRETS_KEY)];
  if (e.SECRETS_KEY_PREVIOUS !== undefined) keys.push(decode(e.SECRETS_KEY_PREVIOUS));
  if (e.NODE_ENV !== 'production') keys.push(DEVELOPMENT_SECRETS_KEY);
  return { secretsKeys: keys.filter((key, i) => keys.findIndex((other) => other.equals(key)) === i), secretsKeyDerived: e.SECRETS_KEY === undefined };
}

export const delayList = Joi.string()
  .pattern(/^\d+(,\d+)*$/)
  .messages({ 'string.pattern.base': '{{#label}} must be a comma-separated list of milliseconds' });
