import { paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { toMemberRecord } from './member-record';
import { listMembersQuery } from './member-schemas';

export const listMembers = defineRoute({
  method: 'get',
  path: '/members',
  permission: 'members:read',
  query: listMembersQuery,
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
