import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { memberRecordSchema, toMemberRecord } from './member-record';
import { listMembersQuery } from './member-schemas';

export const listMembers = defineRoute({
  method: 'get',
  path: '/members',
  summary: 'List members',
  description: 'In the order they joined. Members belong to the organization, not to a mode: live and test keys see the same ones.',
  tag: 'Members',
  permission: 'members:read',
  query: listMembersQuery,
  status: 200,
  response: pageOf(memberRecordSchema),
  handler: async ({ query, tenant, deps }) => {
    const where = { organizationId: tenant.organizationId, ...(query.role && { role: query.role }) };
    return paginate(
      query,
      (window) => deps.db.membership.findMany({ where, include: { user: true }, orderBy: [{ joinedAt: 'asc' }, { userId: 'asc' }], ...window }),
      () => deps.db.membership.count({ where }),
      toMemberRecord,
    );
  },
});
