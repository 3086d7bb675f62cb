import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { invitationParams } from './member-schemas';

/** Its token then fails like an unknown one. Only a pending invitation can be revoked. */
export const revokeInvitation = defineRoute({
  operationId: 'revokeInvitation',
  method: 'delete',
  path: '/members/invitations/:invitationId',
  summary: 'Revoke an invitation',
  description: 'Its token then fails like an unknown one. Only a pending invitation can be revoked: any other answers 404.',
  tag: 'Members',
  permission: 'members:write',
  params: invitationParams,
  errors: ['not_found'],
  status: 204,
  response: null,
  handler: async ({ params, tenant, deps }) => {
    if (!(await deps.data(tenant).invitations.revoke(params.invitationId))) throw notFound('invitationId', 'No such pending invitation');
    return undefined;
  },
});
