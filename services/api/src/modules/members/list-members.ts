import { envelope } from '../../http/pagination';
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
    const [members, total] = await deps.db.$transaction([
      deps.db.membership.findMany({ where, include: { user: true }, orderBy: [{ joinedAt: 'asc' }, { userId: 'asc' }], take: query.limit, skip: query.offset }),
      deps.db.membership.count({ where }),
    ]);
    return envelope(members.map(toMemberRecord), total, query);
  },
});
