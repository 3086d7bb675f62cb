import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import { commonEnv, commonSettings } from './env';
import { envSchema, maybeUnset, parseEnv, type EnvOf } from './env-schema';

/** s3rver's built-in credentials; the embedded store listens on 127.0.0.1 only. */
const EMBEDDED_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const apiEnv = {
  ...commonEnv,
  MAX_UPLOAD_BYTES: Joi.number().integer().min(1).default(26_214_400),
  AUTH_FAILURES_PER_MINUTE: Joi.number().integer().min(1).default(100),
  DRAIN_DELAY_MS: Joi.number().integer().min(0).default(0),
  EVENT_PUBLISH_DELAY_MS: Joi.number().integer().min(0).max(1_000).default(5),
  TRUST_PROXY: Joi.alternatives(Joi.boolean(), Joi.number().integer().min(0), Joi.string()).default(false),
  CURSOR_SECRET: maybeUnset(Joi.string())
    .empty('')
    .min(32)
    .when('NODE_ENV', { is: 'production', then: Joi.required() })
    .messages({ 'any.required': 'CURSOR_SECRET is required in production (NODE_ENV=production): 32 or more random characters, the same on every API replica' }),
  S3_ENDPOINT: maybeUnset(Joi.string().uri()),
  S3_PUBLIC_ENDPOINT: maybeUnset(Joi.string().uri()),
  S3_REGION: Joi.string().default('us-east-1'),
  S3_BUCKET: Joi.string().default('worktrack'),
  S3_ACCESS_KEY_ID: maybeUnset(Joi.string()).when('S3_ENDPOINT', { is: Joi.exist(), then: Joi.required() }),
  S3_SECRET_ACCESS_KEY: maybeUnset(Joi.string()).when('S3_ENDPOINT', { is: Joi.exist(), then: Joi.required() }),
  S3_FORCE_PATH_STYLE: Joi.boolean().default(true),
  S3_EMBEDDED_PORT: Joi.number().port().default(4568),
  S3_EMBEDDED_DIR: Joi.string().default('.data/s3'),
};

/** Every setting of the API, with its default. */
export const apiEnvSchema = envSchema(apiEnv);

export type ApiConfig = ReturnType<typeof loadApiConfig>;

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parseEnv(apiEnvSchema, env);
  return {
    ...commonSettings(e),
    host: e.HOST,
    port: e.PORT,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    /** Unknown API keys one client address may present per minute before it gets 429s. */
    authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    /** Express's `trust proxy`: which proxies' X-Forwarded-For names the client address. */
    trustProxy: e.TRUST_PROXY,
    /** On SIGTERM, how long /readyz answers 503 before the server stops accepting connections. */
    drainDelayMs: e.DRAIN_DELAY_MS,
    /** How long committed events' ids are gathered before they are published together. */
    eventPublishDelayMs: e.EVENT_PUBLISH_DELAY_MS,
    /** Seals list cursors; the same on every replica, or a cursor from one is refused by another. */
    cursorSecret: e.CURSOR_SECRET ?? randomBytes(32).toString('base64url'),
    /** CURSOR_SECRET was unset (outside production): a secret made at boot, so cursors die with the process. */
    cursorSecretEphemeral: e.CURSOR_SECRET === undefined,
    s3: s3Settings(e),
    /** Set when no S3_ENDPOINT is given: `pnpm start` then runs this embedded store and `s3` points at it. */
    s3Embedded: e.S3_ENDPOINT ? null : { port: e.S3_EMBEDDED_PORT, directory: e.S3_EMBEDDED_DIR },
  };
}

function s3Settings(e: EnvOf<typeof apiEnv>) {
  const endpoint = e.S3_ENDPOINT ?? `http://127.0.0.1:${e.S3_EMBEDDED_PORT}`;
  // The schema requires the credentials with S3_ENDPOINT.
  const credentials = e.S3_ENDPOINT ? { accessKeyId: e.S3_ACCESS_KEY_ID!, secretAccessKey: e.S3_SECRET_ACCESS_KEY! } : EMBEDDED_CREDENTIALS;
  return {
    endpoint,
    publicEndpoint: e.S3_PUBLIC_ENDPOINT ?? endpoint,
    region: e.S3_REGION,
    bucket: e.S3_BUCKET,
    ...credentials,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
  };
}
