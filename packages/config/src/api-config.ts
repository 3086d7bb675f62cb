import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import { commonEnv, commonSettings, parseEnv, type CommonSettings } from './env';

export interface S3Settings {
  endpoint: string;
  publicEndpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

export interface ApiConfig extends CommonSettings {
  host: string;
  port: number;
  maxUploadBytes: number;
  /** Unknown API keys one client address may present per minute before it gets 429s. */
  authFailuresPerMinute: number;
  /** Express's `trust proxy`: which proxies' X-Forwarded-For names the client address. */
  trustProxy: boolean | number | string;
  /** On SIGTERM, how long /readyz answers 503 before the server stops accepting connections. */
  drainDelayMs: number;
  /** How long committed events' ids are gathered before they are published together. */
  eventPublishDelayMs: number;
  /** Seals list cursors; the same on every replica, or a cursor from one is refused by another. */
  cursorSecret: string;
  /** CURSOR_SECRET was unset (outside production): a secret made at boot, so cursors die with the process. */
  cursorSecretEphemeral: boolean;
  s3: S3Settings;
  /** Set when no S3_ENDPOINT is given: `pnpm start` then runs this embedded store and `s3` points at it. */
  s3Embedded: { port: number; directory: string } | null;
}

/** s3rver's built-in credentials; the embedded store listens on 127.0.0.1 only. */
const EMBEDDED_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** Every setting of the API, with its default. */
export const apiEnvSchema = Joi.object({
  ...commonEnv,
  HOST: Joi.string().default('127.0.0.1'),
  PORT: Joi.number().port().default(3000),
  MAX_UPLOAD_BYTES: Joi.number().integer().min(1).default(26_214_400),
  AUTH_FAILURES_PER_MINUTE: Joi.number().integer().min(1).default(100),
  DRAIN_DELAY_MS: Joi.number().integer().min(0).default(0),
  EVENT_PUBLISH_DELAY_MS: Joi.number().integer().min(0).max(1_000).default(5),
  TRUST_PROXY: Joi.alternatives(Joi.boolean(), Joi.number().integer().min(0), Joi.string()).default(false),
  CURSOR_SECRET: Joi.string()
    .empty('')
    .min(32)
    .when('NODE_ENV', { is: 'production', then: Joi.required() })
    .messages({ 'any.required': 'CURSOR_SECRET is required in production (NODE_ENV=production): 32 or more random characters, the same on every API replica' }),
  S3_ENDPOINT: Joi.string().uri(),
  S3_PUBLIC_ENDPOINT: Joi.string().uri(),
  S3_REGION: Joi.string().default('us-east-1'),
  S3_BUCKET: Joi.string().default('worktrack'),
  S3_ACCESS_KEY_ID: Joi.string().when('S3_ENDPOINT', { is: Joi.exist(), then: Joi.required() }),
  S3_SECRET_ACCESS_KEY: Joi.string().when('S3_ENDPOINT', { is: Joi.exist(), then: Joi.required() }),
  S3_FORCE_PATH_STYLE: Joi.boolean().default(true),
  S3_EMBEDDED_PORT: Joi.number().port().default(4568),
  S3_EMBEDDED_DIR: Joi.string().default('.data/s3'),
});

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const e = parseEnv<Record<string, any>>(apiEnvSchema, env);
  return {
    ...commonSettings(e),
    host: e.HOST,
    port: e.PORT,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    drainDelayMs: e.DRAIN_DELAY_MS,
    eventPublishDelayMs: e.EVENT_PUBLISH_DELAY_MS,
    cursorSecret: e.CURSOR_SECRET ?? randomBytes(32).toString('base64url'),
    cursorSecretEphemeral: e.CURSOR_SECRET === undefined,
    s3: s3Settings(e),
    s3Embedded: e.S3_ENDPOINT ? null : { port: e.S3_EMBEDDED_PORT, directory: e.S3_EMBEDDED_DIR },
  };
}

function s3Settings(e: Record<string, any>): S3Settings {
  const embedded = `http://127.0.0.1:${e.S3_EMBEDDED_PORT}`;
  const endpoint: string = e.S3_ENDPOINT ?? embedded;
  return {
    endpoint,
    publicEndpoint: e.S3_PUBLIC_ENDPOINT ?? endpoint,
    region: e.S3_REGION,
    bucket: e.S3_BUCKET,
    accessKeyId: e.S3_ENDPOINT ? e.S3_ACCESS_KEY_ID : EMBEDDED_CREDENTIALS.accessKeyId,
    secretAccessKey: e.S3_ENDPOINT ? e.S3_SECRET_ACCESS_KEY : EMBEDDED_CREDENTIALS.secretAccessKey,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
  };
}
