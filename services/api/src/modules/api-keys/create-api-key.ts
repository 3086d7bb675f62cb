import { forbidden, invalid } from '../../http/errors';
import { PERMISSIONS } from '../../http/permissions';
import { defineRoute } from '../../http/route';
import { createApiKeyBody } from './api-key-schemas';
import { issueApiKey } from './issue-api-key';

export const createApiKey = defineRoute({
  method: 'post',
  path: '/api-keys',
  permission: 'api_keys:write',
  body: createApiKeyBody,
  status: 201,
  handler: async ({ body, tenant, deps }) => {
    const requested = body.permissions.includes('*') ? PERMISSIONS : body.permissions;
    if (requested.some((p) => !tenant.permissions.has(p as (typeof PERMISSIONS)[number]))) {
      throw forbidden('A key cannot grant permissions that the calling key does not have', 'permissions');
    }
    const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw invalid('expiresAt', 'expiresAt must be in the future');
    const { record, key } = await issueApiKey(deps.db, {
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
