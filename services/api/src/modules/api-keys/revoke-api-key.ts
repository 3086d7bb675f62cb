import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { apiKeyParams } from './api-key-schemas';

export const revokeApiKey = defineRoute({
  method: 'delete',
  path: '/api-keys/:keyId',
  permission: 'api_keys:write',
  params: apiKeyParams,
  handler: async ({ params, tenant, deps }) => {
    const { count } = await deps.db.apiKey.updateMany({
      where: { id: params.keyId, organizationId: tenant.organizationId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (count === 0) throw notFound('keyId', 'No such API key');
    return undefined;
  },
});
