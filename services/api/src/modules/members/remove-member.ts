import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { pendingInvitations, revocation } from './invitation-record';
import { toMemberRecord } from './member-record';
import { memberParams } from './member-schemas';
import { assertNotLastAdmin, lockMemberships, memberEventScope } from './membership-rules';

/**
 * Removes the membership and revokes the user's keys in this organization (they stop working at once),
 * the invitations they sent that are still pending, and their dashboard sessions and sign-in links.
 */
export const removeMember = defineRoute({
  method: 'delete',
  path: '/members/:userId',
  permission: 'members:write',
  params: memberParams,
  handler: ({ params, tenant, deps }) =>
    commitWithEvents(deps, memberEventScope(tenant.organizationId), async (tx) => {
      await lockMemberships(tx, tenant.organizationId);
      const key = { organizationId_userId: { organizationId: tenant.organizationId, userId: params.userId } };
      const existing = await tx.membership.findUnique({ where: key, include: { user: true } });
      if (!existing) throw notFound('userId', 'No such member');
      if (existing.role === 'admin') await assertNotLastAdmin(tx, tenant.organizationId);
      await tx.membership.delete({ where: key });
      await tx.apiKey.updateMany({
        where: { organizationId: tenant.organizationId, userId: params.userId, revokedAt: null },
        data: { revokedAt: new Date() },
      });
      await tx.invitation.updateMany({ where: { ...pendingInvitations(tenant.organizationId), invitedById: params.userId }, data: revocation() });
      await tx.dashboardSession.deleteMany({ where: { organizationId: tenant.organizationId, userId: params.userId } });
      await tx.dashboardLink.deleteMany({ where: { organizationId: tenant.organizationId, userId: params.userId } });
      return { result: undefined, events: [events.memberRemoved(toMemberRecord(existing))] };
    }),
});
