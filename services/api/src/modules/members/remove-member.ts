import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { toMemberRecord } from './member-record';
import { memberParams } from './member-schemas';
import { assertNotLastAdmin, lockMember, memberEventScope } from './membership-rules';

/**
 * Removes the membership and revokes the user's keys in this organization (they stop working at once),
 * the invitations they sent that are still pending, and their dashboard sessions and sign-in links.
 */
export const removeMember = defineRoute({
  operationId: 'removeMember',
  method: 'delete',
  path: '/members/:userId',
  summary: 'Remove a member',
  description:
    "Emits `member.removed`. The member's API keys in this organization stop working at once, their dashboard sessions and sign-in links end, and the invitations they sent that are still pending are revoked. The last admin cannot be removed (409). Test keys never manage members.",
  tag: 'Members',
  permission: 'members:write',
  params: memberParams,
  // The member is locked and loaded inside the transaction, with the organization's memberships.
  errors: ['not_found', 'conflict'],
  status: 204,
  response: null,
  handler: async ({ params, tenant, deps }) => {
    await deps.data(memberEventScope(tenant.organizationId)).commitWithEvents(async (tx) => {
      const existing = await lockMember(tx, tenant, params.userId);
      if (existing.role === 'admin') await assertNotLastAdmin(tx);
      await tx.members.remove(existing.userId);
      return { result: undefined, events: [events.memberRemoved(toMemberRecord(existing))] };
    });
    deps.keyRevocations.announce(tenant.organizationId);
    return undefined;
  },
});
