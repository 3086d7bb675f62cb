import { defineRoute } from '../../http/route';
import { paginate } from '../../http/pagination';
import { listApiKeysQuery } from './api-key-schemas';
import { toApiKeyRecord } from './issue-api-key';

/** Keys belong to the organization, not to a mode: both live and test keys are listed. */
export const listApiKeys = defineRoute({
  method: 'get',
  path: '/api-keys',
  permission: 'api_keys:write',
  query: listApiKeysQuery,
  handler: async ({ query, tenant, deps }) => {
    const where = { organizationId: tenant.organizationId };
    return paginate(
      query,
      (window) => deps.db.apiKey.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.apiKey.count({ where }),
      toApiKeyRecord,
    );
  },
});
