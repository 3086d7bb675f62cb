import { Router } from 'express';
import { newId } from '@worktrack/db';
import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import type { AppDeps } from '../../deps';
import { conflict, invalid } from '../../http/errors';
import { jsonBody } from '../../http/json-body';
import { validate } from '../../http/validation';
import { issueApiKey } from '../api-keys/issue-api-key';
import { hashInvitationToken } from './invite-member';
import { toMemberRecord } from './member-record';
import { acceptInvitationBody } from './member-schemas';
import { memberEventScope } from './membership-rules';

/**
 * `POST /v1/invitations/accept`, the one write without an API key: the invitation token is the
 * credential. Creates (or reuses) the user, the membership and a first live key following the role.
 */
export function acceptInvitationRoute(deps: AppDeps): Router {
  const router = Router();
  router.post('/v1/invitations/accept', jsonBody, async (req, res) => {
    const body = validate(acceptInvitationBody, req.body ?? {});
    const invitation = await deps.db.invitation.findUnique({ where: { tokenHash: hashInvitationToken(body.token) } });
    if (!invitation || invitation.status !== 'pending' || invitation.expiresAt <= new Date()) {
      throw invalid('token', 'The invitation token is invalid, expired or already used');
    }
    const scope = memberEventScope(invitation.organizationId);
    const result = await commitWithEvents(deps, scope, async (tx) => {
      const claimed = await tx.invitation.updateMany({
        where: { id: invitation.id, status: 'pending' },
        data: { status: 'accepted', acceptedAt: new Date() },
      });
      if (claimed.count === 0) throw invalid('token', 'The invitation token is invalid, expired or already used');
      const user = await tx.user.upsert({
        where: { email: invitation.email },
        create: { id: newId('user'), email: invitation.email, name: body.name },
        update: {},
      });
      const already = await tx.membership.findUnique({
        where: { organizationId_userId: { organizationId: invitation.organizationId, userId: user.id } },
      });
      if (already) throw conflict(`${invitation.email} is already a member`, 'token');
      const membership = await tx.membership.create({
        data: { organizationId: invitation.organizationId, userId: user.id, role: invitation.role },
        include: { user: true },
      });
      const apiKey = await issueApiKey(tx, { ...scope, userId: user.id, name: 'First key', permissions: ['*'] });
      const member = toMemberRecord(membership);
      return { result: { member, apiKey: { ...apiKey.record, key: apiKey.key } }, events: [events.memberAdded(member)] };
    });
    res.status(201).json(result);
  });
  return router;
}
