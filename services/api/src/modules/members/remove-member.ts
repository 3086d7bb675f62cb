import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { defineRoute } from '../../http/route';
import { revokeInvitationsOfMember } from '@worktrack/db';
import { toMemberRecord } from './member-record';
import { memberParams } from './member-schemas';
import { assertNotLastAdmin, lockMember, memberEventScope, memberKey } from './membership-rules';

/**
 * Removes the membership and revokes the user's keys in this organization (they stop working at once),
 * the pending invitations addressed to them or sent by them, and their dashboard sessions and sign-in links.
 */
export const removeMember = defineRoute({
  operationId: 'removeMember',
  method: 'delete',
  path: '/members/:userId',
  summary: 'Remove a member',
  description:
    "Emits `member.removed`. The member's API keys in this organization stop working at once, their dashboard sessions and sign-in links end, and the pending invitations addressed to them or sent by them are revoked (a leftover token cannot bring them back). The last admin cannot be removed (409). Test keys never manage members.",
  tag: 'Members',
  permission: 'members:write',
  params: memberParams,
  // The member is locked and loaded inside the transaction, with the organization's memberships.
  errors: ['not_found', 'conflict'],
  status: 204,
  response: null,
  handler: async ({ params, tenant, deps }) => {
    await commitWithEvents(deps, memberEventScope(tenant.organizationId), async (tx) => {
      const existing = await lockMember(tx, tenant, params.userId);
      if (existing.role === 'admin') await assertNotLastAdmin(tx, tenant.organizationId);
      await tx.membership.delete({ where: memberKey(existing.organizationId, existing.userId) });
      await tx.apiKey.updateMany({
        where: { organizationId: tenant.organizationId, userId: params.userId, revokedAt: null },
        data: { revokedAt: new Date() },
      });
      await revokeInvitationsOfMember(tx, tenant.organizationId, { userId: params.userId, email: existing.user.email });
      await tx.dashboardSession.deleteMany({ where: { organizationId: tenant.organizationId, userId: params.userId } });
      await tx.dashboardLink.deleteMany({ where: { organizationId: tenant.organizationId, userId: params.userId } });
      return { result: undefined, events: [events.memberRemoved(toMemberRecord(existing))] };
    });
    deps.keyRevocations.announce(tenant.organizationId);
    return undefined;
  },
});
