import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { memberRecordSchema, toMemberRecord } from './member-record';
import { listMembersQuery, memberOrder } from './member-schemas';

export const listMembers = defineRoute({
  operationId: 'listMembers',
  method: 'get',
  path: '/members',
  summary: 'List members',
  description:
    'In the order they joined unless `sort` says otherwise. Members belong to the organization, not to a mode: live and test keys see the same ones.',
  tag: 'Members',
  permission: 'members:read',
  query: listMembersQuery,
  status: 200,
  response: pageOf(memberRecordSchema),
  handler: async (request) => {
    const { query, tenant, deps } = request;
    return paginate(request, { order: memberOrder, ...deps.data(tenant).members.list(query), toRecord: toMemberRecord });
  },
});
