import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { toMemberRecord } from './member-record';
import { memberParams, updateMemberBody } from './member-schemas';
import { assertKeyCanGrant, assertNotLastAdmin, lockMemberships, memberEventScope } from './membership-rules';

export const updateMember = defineRoute({
  method: 'patch',
  path: '/members/:userId',
  permission: 'members:write',
  params: memberParams,
  body: updateMemberBody,
  handler: async ({ params, body, tenant, deps }) => {
    assertKeyCanGrant(tenant, body.role);
    return commitWithEvents(deps, memberEventScope(tenant.organizationId), async (tx) => {
      await lockMemberships(tx, tenant.organizationId);
      const key = { organizationId_userId: { organizationId: tenant.organizationId, userId: params.userId } };
      const existing = await tx.membership.findUnique({ where: key, include: { user: true } });
      if (!existing) throw notFound('userId', 'No such member');
      if (existing.role === body.role) return { result: toMemberRecord(existing), events: [] };
      if (existing.role === 'admin') await assertNotLastAdmin(tx, tenant.organizationId);
      const updated = toMemberRecord(await tx.membership.update({ where: key, data: { role: body.role }, include: { user: true } }));
      return { result: updated, events: [events.memberRoleChanged(updated, existing.role)] };
    });
  },
});
