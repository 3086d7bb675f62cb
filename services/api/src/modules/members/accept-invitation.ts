import Joi from 'joi';
import { Mode } from '@worktrack/db';
import { events, type MemberRecord } from '@worktrack/events';
import { conflict, invalid } from '../../http/errors';
import { out } from '../../http/record-fields';
import { definePublicRoute } from '../../http/route';
import { issueApiKey, type ApiKeyRecord } from '../api-keys/issue-api-key';
import { hashInvitationToken } from './invite-member';
import { memberRecordSchema, toMemberRecord } from './member-record';
import { acceptInvitationBody } from './member-schemas';
import { memberEventScope } from './membership-rules';

interface AcceptedInvitation {
  member: MemberRecord;
  apiKey: ApiKeyRecord & { key: string };
}

const acceptedInvitationSchema = Joi.object<AcceptedInvitation, true>({
  member: memberRecordSchema.required(),
  apiKey: Joi.object<AcceptedInvitation['apiKey'], true>({
    id: out.id('key'),
    name: Joi.string().required(),
    prefix: Joi.string().required(),
    mode: Joi.string()
      .valid(...Object.values(Mode))
      .required(),
    permissions: Joi.array().items(Joi.string()).required(),
    userId: out.id('usr'),
    expiresAt: out.nullableTimestamp(),
    revokedAt: out.nullableTimestamp(),
    createdAt: out.timestamp(),
    key: Joi.string().required().description('The API key itself, shown this once'),
  }).required(),
}).id('AcceptedInvitation');

/**
 * The one write without an API key: the invitation token is the credential. Creates (or reuses)
 * the user, the membership and a first live key following the role.
 */
export const acceptInvitation = definePublicRoute({
  operationId: 'acceptInvitation',
  method: 'post',
  path: '/invitations/accept',
  summary: 'Accept an invitation',
  description:
    "Needs no API key: the invitation's token is the credential, valid once. Creates the user (or reuses one with that email) and the membership, emits `member.added`, and answers with the member and a first live API key, shown this once, whose rights follow the role. An invalid, expired, revoked or used token → 400, param `token`.",
  tag: 'Members',
  body: acceptInvitationBody,
  errors: ['conflict'],
  status: 201,
  response: acceptedInvitationSchema,
  location: ({ member }) => `/members/${member.id}`,
  handler: async ({ body, deps }) => {
    const invitation = await deps.unscoped.signIn.findInvitation(hashInvitationToken(body.token));
    if (invitation?.status !== 'pending' || invitation.expiresAt <= new Date()) {
      throw invalid('token', 'The invitation token is invalid, expired or already used');
    }
    const scope = memberEventScope(invitation.organizationId);
    return deps.data(scope).commitWithEvents(async (tx) => {
      const accepted = await tx.invitations.accept(invitation, body.name);
      if (!accepted) throw invalid('token', 'The invitation token is invalid, expired or already used');
      if (accepted.already) throw conflict(`${invitation.email} is already a member`, 'token');
      const { membership } = accepted;
      const apiKey = await issueApiKey(tx.apiKeys.insert, { ...scope, userId: membership.userId, name: 'First key', permissions: ['*'] });
      const member = toMemberRecord(membership);
      return { result: { member, apiKey: { ...apiKey.record, key: apiKey.key } }, events: [events.memberAdded(member)] };
    });
  },
});
