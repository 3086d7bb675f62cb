import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import { Mode, type ApiKey, type ApiKeyRow } from '@worktrack/db';
import { hashApiKey } from '../../http/auth';
import { PERMISSIONS } from '../../http/permissions';
import { out } from '../../http/record-fields';
import { iso } from '../timestamps';

export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  mode: Mode;
  permissions: string[];
  userId: string;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

export function toApiKeyRecord(key: ApiKey): ApiKeyRecord {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    mode: key.mode,
    permissions: key.permissions,
    userId: key.userId,
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    createdAt: key.createdAt.toISOString(),
  };
}

const apiKeyFields = {
  id: out.id('key'),
  name: Joi.string().required().example('CI'),
  prefix: Joi.string().required().description('The first 12 characters of the key, to recognize it by').example('tk_live_Xy3k'),
  mode: Joi.string()
    .valid(...Object.values(Mode))
    .required(),
  permissions: Joi.array()
    .items(Joi.string().valid('*', ...PERMISSIONS))
    .required(),
  userId: Joi.string().required().description('The member the key acts as'),
  expiresAt: out.nullableTimestamp(),
  revokedAt: out.nullableTimestamp(),
  createdAt: out.timestamp(),
};

export const apiKeyRecordSchema = Joi.object<ApiKeyRecord, true>(apiKeyFields).id('ApiKey');

/** A key as created: its record and, this once, the key itself. */
export type CreatedApiKey = ApiKeyRecord & { key: string };

export const createdApiKeySchema = Joi.object<CreatedApiKey, true>({
  ...apiKeyFields,
  key: Joi.string().required().description('The secret key, shown only in this response'),
}).id('CreatedApiKey');

export interface NewApiKey {
  organizationId: string;
  userId: string;
  name: string;
  mode: Mode;
  permissions: string[];
  expiresAt?: Date | null;
}

/** Creates a key and returns its secret once; only the SHA-256 hash and a display prefix are stored. */
export async function issueApiKey(insert: (row: ApiKeyRow) => Promise<ApiKey>, input: NewApiKey): Promise<{ record: ApiKeyRecord; key: string }> {
  const key = `tk_${input.mode}_${randomBytes(24).toString('base64url')}`;
  const row = await insert({
    organizationId: input.organizationId,
    userId: input.userId,
    name: input.name,
    mode: input.mode,
    prefix: key.slice(0, 12),
    hash: hashApiKey(key),
    permissions: input.permissions,
    expiresAt: input.expiresAt ?? null,
  });
  return { record: toApiKeyRecord(row), key };
}
