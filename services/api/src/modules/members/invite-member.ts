import { createHash, randomBytes } from 'node:crypto';
import { conflict } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { newInvitationSchema, toInvitationRecord } from './invitation-record';
import { inviteBody } from './member-schemas';
import { assertKeyCanGrant, lockCallerMembership } from './membership-rules';

const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The token is returned once; only its hash is stored. It is valid 7 days and for one acceptance. */
export const inviteMember = defineRoute({
  operationId: 'inviteMember',
  method: 'post',
  path: '/members/invite',
  summary: 'Invite a member',
  description:
    "Answers with the invitation and its `token`, shown this once: valid 7 days, for one acceptance (POST /invitations/accept). Inviting an existing member → 409. A role whose rights exceed the calling key's is refused (403, param `role`). Test keys never manage members.",
  tag: 'Members',
  permission: 'members:write',
  body: inviteBody,
  errors: ['conflict', 'forbidden'],
  status: 201,
  response: newInvitationSchema,
  location: (invitation) => `/members/invitations/${invitation.id}`,
  handler: async ({ body, tenant, deps }) => {
    assertKeyCanGrant(tenant, body.role);
    const token = `invtok_${randomBytes(32).toString('base64url')}`;
    const invitation = await deps.data(tenant).transaction(async (tx) => {
      // A removal of the inviter revokes the invitations they sent: one made meanwhile must not survive it.
      await lockCallerMembership(tx, tenant);
      const existing = await tx.members.findByEmail(body.email);
      if (existing) throw conflict(`${body.email} is already a member`, 'email');
      return tx.invitations.create({
        email: body.email,
        role: body.role,
        tokenHash: hashInvitationToken(token),
        invitedById: tenant.userId,
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      });
    });
    return { ...toInvitationRecord(invitation), token };
  },
});
