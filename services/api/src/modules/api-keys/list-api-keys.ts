import { defineRoute } from '../../http/route';
import { envelope } from '../../http/pagination';
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
    const [keys, total] = await deps.db.$transaction([
      deps.db.apiKey.findMany({ where, orderBy: { id: 'desc' }, take: query.limit, skip: query.offset }),
      deps.db.apiKey.count({ where }),
    ]);
    return envelope(keys.map(toApiKeyRecord), total, query);
  },
});
