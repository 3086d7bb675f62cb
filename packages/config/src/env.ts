import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import Joi from 'joi';
import { maybeUnset, oneOf, type EnvOf } from './env-schema';
import { listeningAddress, publicBaseUrlMismatch } from './public-base-url';
import { redisEnv, redisSettings } from './redis-settings';

/** Reads `.env` from the working directory, if present, without overriding real environment variables. */
export function loadDotEnv(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}

const csv = Joi.string().allow('').default('');

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const secretsKey = (name: string) =>
  maybeUnset(Joi.string())
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
  NODE_ENV: maybeUnset(Joi.string()),
  SECRETS_KEY: secretsKey('SECRETS_KEY').when('NODE_ENV', { is: 'production', then: Joi.required() }).messages({
    'any.required':
      'SECRETS_KEY is required in production (NODE_ENV=production): base64 of 32 random bytes (openssl rand -base64 32), the same for the API and the worker',
  }),
  SECRETS_KEY_PREVIOUS: secretsKey('SECRETS_KEY_PREVIOUS'),
  DATABASE_URL: postgresUrl.default('postgresql://postgres:postgres@127.0.0.1:5432/worktrack'),
  // Postgres beyond one server (docs/decisions.md): what DATABASE_URL points at, and where the
  // migrations go when that is a pooler. DATABASE_DIRECT_URL is read by the migrate command
  // (prisma.config.mts); it is validated here so that a malformed one stops the services too.
  DATABASE_POOLER: oneOf('none', 'pgbouncer').default('none'),
  DATABASE_DIRECT_URL: maybeUnset(postgresUrl).empty(''),
  ...redisEnv,
  LOG_LEVEL: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  LOG_FORMAT: oneOf('json', 'pretty').default('json'),
  WEBHOOK_ALLOWED_HOSTS: csv,
  // The API's address; the worker reads it too, for PUBLIC_BASE_URL's default.
  HOST: Joi.string().default('127.0.0.1'),
  PORT: Joi.number().port().default(3000),
  PUBLIC_BASE_URL: maybeUnset(Joi.string().uri()),
  SMTP_URL: maybeUnset(Joi.string())
    .empty('')
    .uri({ scheme: ['smtp', 'smtps'] }),
  MAIL_FROM: Joi.string().default('worktrack <no-reply@localhost>'),
  MAIL_DIR: Joi.string().default('.data/mail'),
};

type CommonEnv = EnvOf<typeof commonEnv>;

/** What both services log at boot when `secretsKeyDerived`. */
export const DERIVED_SECRETS_KEY_WARNING =
  'SECRETS_KEY is unset: webhook secrets are encrypted at rest under a development key that everyone can derive; set SECRETS_KEY (openssl rand -base64 32), the same for the API and the worker';

export function commonSettings(e: CommonEnv) {
  return {
    databaseUrl: e.DATABASE_URL,
    /** `pgbouncer`: DATABASE_URL is PgBouncer in transaction pooling mode, so no statement is prepared by name. */
    databasePooler: e.DATABASE_POOLER,
    ...redisSettings(e),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    webhookAllowedHosts: splitList(e.WEBHOOK_ALLOWED_HOSTS),
    /** The address people reach the API and its dashboard at: links in mails and sign-in links name it. Unset: the API's own (HOST, PORT). */
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? listeningAddress(e.HOST, e.PORT)).replace(/\/+$/, ''),
    /** Why PUBLIC_BASE_URL's links would lead nowhere, if they would: the API warns at start. */
    publicBaseUrlWarning: e.PUBLIC_BASE_URL === undefined ? undefined : publicBaseUrlMismatch(e.PUBLIC_BASE_URL, e.HOST, e.PORT),
    mail: mailSettings(e),
    ...secretsKeys(e),
  };
}

/** Where mail goes (docs/decisions.md#email-and-invitations): over SMTP, or with no SMTP_URL into a folder, its links logged. */
function mailSettings(e: CommonEnv) {
  return {
    smtpUrl: e.SMTP_URL ?? null,
    from: e.MAIL_FROM,
    directory: e.MAIL_DIR,
    /** With no SMTP_URL, whether the links of a mail are logged: outside production only, as they sign people in. */
    logLinks: e.NODE_ENV !== 'production',
  };
}

export type MailSettings = ReturnType<typeof mailSettings>;

function secretsKeys(e: CommonEnv) {
  const decode = (key: string) => Buffer.from(key, 'base64');
  const keys = [e.SECRETS_KEY === undefined ? DEVELOPMENT_SECRETS_KEY : decode(e.SECRETS_KEY)];
  if (e.SECRETS_KEY_PREVIOUS !== undefined) keys.push(decode(e.SECRETS_KEY_PREVIOUS));
  if (e.NODE_ENV !== 'production') keys.push(DEVELOPMENT_SECRETS_KEY);
  return {
    /**
     * Keys of the secrets sealed at rest (webhook signing secrets): the first seals, every one opens
     * what it sealed. SECRETS_KEY, then SECRETS_KEY_PREVIOUS, then (outside production) the
     * development key.
     */
    secretsKeys: keys.filter((key, i) => keys.findIndex((other) => other.equals(key)) === i),
    /** SECRETS_KEY was unset (outside production): secrets are sealed under the development key, known to everyone. */
    secretsKeyDerived: e.SECRETS_KEY === undefined,
  };
}

export const delayList = Joi.string()
  .pattern(/^\d+(,\d+)*$/)
  .messages({ 'string.pattern.base': '{{#label}} must be a comma-separated list of milliseconds' });
