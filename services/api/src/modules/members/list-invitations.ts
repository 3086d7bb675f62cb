import { paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { pendingInvitations, toInvitationRecord } from './invitation-record';
import { listInvitationsQuery } from './member-schemas';

/** The pending invitations, newest first. */
export const listInvitations = defineRoute({
  method: 'get',
  path: '/members/invitations',
  permission: 'members:read',
  query: listInvitationsQuery,
  handler: async ({ query, tenant, deps }) => {
    const where = pendingInvitations(tenant.organizationId);
    return paginate(
      query,
      (window) => deps.db.invitation.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.invitation.count({ where }),
      toInvitationRecord,
    );
  },
});
