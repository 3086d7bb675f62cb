import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { invitationRecordSchema, toInvitationRecord } from './invitation-record';
import { invitationOrder, listInvitationsQuery } from './member-schemas';

/** The pending invitations, newest first. */
export const listInvitations = defineRoute({
  operationId: 'listInvitations',
  method: 'get',
  path: '/members/invitations',
  summary: 'List pending invitations',
  description: 'Only invitations that can still be accepted (not accepted, revoked or expired), newest first. Never shows their tokens.',
  tag: 'Members',
  permission: 'members:read',
  query: listInvitationsQuery,
  status: 200,
  response: pageOf(invitationRecordSchema),
  handler: async (request) => {
    const { tenant, deps } = request;
    return paginate(request, { order: invitationOrder, ...deps.data(tenant).invitations.listPending(), toRecord: toInvitationRecord });
  },
});
