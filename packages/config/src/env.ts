import { existsSync } from 'node:fs';
import Joi from 'joi';
import type { LogFormat } from './logger';

/** Reads `.env` from the working directory, if present, without overriding real environment variables. */
export function loadDotEnv(file = '.env'): void {
  if (existsSync(file)) process.loadEnvFile(file);
}

/** Validates the environment against a schema once, at boot, and fails fast with every problem listed. */
export function parseEnv<T>(schema: Joi.ObjectSchema, env: NodeJS.ProcessEnv = process.env): T {
  const { value, error } = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  if (error) {
    const problems = error.details.map((d) => `  - ${d.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  return value as T;
}

const csv = Joi.string().allow('').default('');

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export const commonEnv = {
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgresql', 'postgres'] })
    .default('postgresql://postgres:postgres@127.0.0.1:5432/worktrack'),
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: Joi.string()
    .pattern(/^[\w.-]+$/)
    .default('worktrack'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  LOG_FORMAT: Joi.string().valid('json', 'pretty').default('json'),
  WEBHOOK_ALLOWED_HOSTS: csv,
};

export interface CommonSettings {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  logLevel: string;
  logFormat: LogFormat;
  webhookAllowedHosts: string[];
}

export function commonSettings(e: Record<string, any>): CommonSettings {
  return {
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    webhookAllowedHosts: splitList(e.WEBHOOK_ALLOWED_HOSTS),
  };
}

export const delayList = Joi.string()
  .pattern(/^\d+(,\d+)*$/)
  .messages({ 'string.pattern.base': '{{#label}} must be a comma-separated list of milliseconds' });
