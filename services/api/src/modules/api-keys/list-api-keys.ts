import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { apiKeyOrder, listApiKeysQuery } from './api-key-schemas';
import { apiKeyRecordSchema, toApiKeyRecord } from './issue-api-key';

/** Keys belong to the organization, not to a mode: both live and test keys are listed. */
export const listApiKeys = defineRoute({
  operationId: 'listApiKeys',
  method: 'get',
  path: '/api-keys',
  summary: "List the organization's API keys",
  description: 'Newest first; live and test keys alike, revoked and expired ones too. Never the keys themselves.',
  tag: 'API keys',
  permission: 'api_keys:write',
  query: listApiKeysQuery,
  status: 200,
  response: pageOf(apiKeyRecordSchema),
  handler: async (request) => {
    const { tenant, deps } = request;
    return paginate(request, { order: apiKeyOrder, ...deps.data(tenant).apiKeys.list(), toRecord: toApiKeyRecord });
  },
});
