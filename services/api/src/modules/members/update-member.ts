import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { memberRecordSchema, toMemberRecord } from './member-record';
import { memberParams, updateMemberBody } from './member-schemas';
import { assertKeyCanGrant, assertNotLastAdmin, lockMember, memberEventScope } from './membership-rules';

export const updateMember = defineRoute({
  operationId: 'updateMember',
  method: 'patch',
  path: '/members/:userId',
  summary: "Change a member's role",
  description:
    "Emits `member.role_changed`. The last admin cannot be demoted (409). A role whose rights exceed the calling key's is refused (403, param `role`). Test keys never manage members.",
  tag: 'Members',
  permission: 'members:write',
  params: memberParams,
  body: updateMemberBody,
  // The member is locked and loaded inside the transaction, with the organization's memberships.
  errors: ['not_found', 'conflict', 'forbidden'],
  status: 200,
  response: memberRecordSchema,
  handler: async ({ params, body, tenant, deps }) => {
    assertKeyCanGrant(tenant, body.role);
    const member = await deps.data(memberEventScope(tenant.organizationId)).commitWithEvents(async (tx) => {
      const existing = await lockMember(tx, tenant, params.userId);
      if (existing.role === body.role) return { result: toMemberRecord(existing), events: [] };
      if (existing.role === 'admin') await assertNotLastAdmin(tx);
      const updated = toMemberRecord(await tx.members.setRole(existing.userId, body.role));
      return { result: updated, events: [events.memberRoleChanged(updated, existing.role)] };
    });
    // The member's keys now grant what the new role allows.
    deps.keyRevocations.announce(tenant.organizationId);
    return member;
  },
});
