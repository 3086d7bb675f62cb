import { forbidden, invalid } from '../../http/errors';
import { PERMISSIONS, type Permission } from '../../http/permissions';
import { defineRoute } from '../../http/route';
import { createApiKeyBody } from './api-key-schemas';
import { createdApiKeySchema, issueApiKey } from './issue-api-key';

export const createApiKey = defineRoute({
  operationId: 'createApiKey',
  method: 'post',
  path: '/api-keys',
  summary: 'Create an API key',
  description:
    'The key itself is in this response only; store it now. `permissions` defaults to `["*"]` and may not exceed those of the calling key (403, param `permissions`); ' +
    "`mode` defaults to the calling key's. Test keys cannot manage keys.",
  tag: 'API keys',
  permission: 'api_keys:write',
  body: createApiKeyBody,
  status: 201,
  response: createdApiKeySchema,
  handler: async ({ body, tenant, deps }) => {
    const requested = body.permissions[0] === '*' ? PERMISSIONS : (body.permissions as Permission[]);
    if (requested.some((p) => !tenant.permissions.has(p))) {
      throw forbidden('A key cannot grant permissions that the calling key does not have', 'permissions');
    }
    const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw invalid('expiresAt', 'expiresAt must be in the future');
    const { record, key } = await issueApiKey(deps.data(tenant).apiKeys.insert, {
      organizationId: tenant.organizationId,
      userId: tenant.userId,
      name: body.name,
      mode: body.mode ?? tenant.mode,
      permissions: body.permissions,
      expiresAt,
    });
    return { ...record, key };
  },
});
