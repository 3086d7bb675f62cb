import Joi from 'joi';
import { Mode } from '@worktrack/db';
import { creationOrder } from '../../http/list-order';
import { pageQuery, type PageParams } from '../../http/pagination';
import { PERMISSIONS, type Permission } from '../../http/permissions';
import { fields } from '../../http/fields';
import type { ApiKeyRecord } from './issue-api-key';
import { nameString } from '../../http/names';

export interface ApiKeyInput {
  name: string;
  /** Every permission, or a list of them. */
  permissions: ['*'] | Permission[];
  mode?: Mode;
  expiresAt?: string | null;
}

export const createApiKeyBody = Joi.object<ApiKeyInput, true>({
  name: nameString(100).required(),
  permissions: Joi.alternatives(
    Joi.array().items(Joi.string().valid('*')).length(1),
    Joi.array()
      .items(Joi.string().valid(...PERMISSIONS))
      .min(1)
      .unique(),
  )
    .default(['*'])
    .messages({ 'alternatives.match': 'permissions must be ["*"] or a non-empty list of known permissions' }),
  mode: Joi.string().valid(...Object.values(Mode)),
  expiresAt: fields.timestamp().allow(null),
});

export const apiKeyParams = Joi.object<{ keyId: string }, true>({ keyId: Joi.string().max(100).required() });

export const apiKeyOrder = creationOrder<ApiKeyRecord>('api-keys', '-createdAt');
export const listApiKeysQuery = Joi.object<PageParams<'createdAt'>, true>({ ...pageQuery(apiKeyOrder) });
