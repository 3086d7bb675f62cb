import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { apiKeyParams } from './api-key-schemas';

export const revokeApiKey = defineRoute({
  operationId: 'revokeApiKey',
  method: 'delete',
  path: '/api-keys/:keyId',
  summary: 'Revoke an API key',
  description: 'The key stops working at once. 404 for a key already revoked.',
  tag: 'API keys',
  permission: 'api_keys:write',
  params: apiKeyParams,
  // Keys belong to the organization, not to a mode, so no tenant-scoped resource finds them.
  errors: ['not_found'],
  status: 204,
  response: null,
  handler: async ({ params, tenant, deps }) => {
    if (!(await deps.data(tenant).apiKeys.revoke(params.keyId))) throw notFound('keyId', 'No such API key');
    deps.keyRevocations.announce(tenant.organizationId);
    return undefined;
  },
});
