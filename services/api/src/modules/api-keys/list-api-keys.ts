import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { listApiKeysQuery } from './api-key-schemas';
import { apiKeyRecordSchema, toApiKeyRecord } from './issue-api-key';

/** Keys belong to the organization, not to a mode: both live and test keys are listed. */
export const listApiKeys = defineRoute({
  method: 'get',
  path: '/api-keys',
  summary: "List the organization's API keys",
  description: 'Newest first; live and test keys alike, revoked and expired ones too. Never the keys themselves.',
  tag: 'API keys',
  permission: 'api_keys:write',
  query: listApiKeysQuery,
  status: 200,
  response: pageOf(apiKeyRecordSchema),
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
