import Joi from 'joi';
import { InvitationStatus, Role, type Invitation } from '@worktrack/db';
import { out } from '../../http/record-fields';

/** An invitation as the API shows it; the token is shown once, by the invite itself, and never stored. */
export interface InvitationRecord {
  id: string;
  email: string;
  role: string;
  status: string;
  invitedBy: string;
  expiresAt: string;
  createdAt: string;
}

/** The answer to an invite: the record and its token, shown this once. */
export interface NewInvitation extends InvitationRecord {
  token: string;
}

export function toInvitationRecord(invitation: Invitation): InvitationRecord {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    status: invitation.status,
    invitedBy: invitation.invitedById,
    expiresAt: invitation.expiresAt.toISOString(),
    createdAt: invitation.createdAt.toISOString(),
  };
}

/** The organization's invitations that can still be accepted: neither accepted, revoked nor expired. */
const invitationFields = {
  id: out.id('inv'),
  email: Joi.string().required().example('ada@example.com'),
  role: Joi.string()
    .valid(...Object.values(Role))
    .required(),
  status: Joi.string()
    .valid(...Object.values(InvitationStatus))
    .required(),
  invitedBy: out.id('usr').description('The user who invited'),
  expiresAt: out.timestamp(),
  createdAt: out.timestamp(),
};

export const invitationRecordSchema = Joi.object<InvitationRecord, true>(invitationFields).id('Invitation');

export const newInvitationSchema = Joi.object<NewInvitation, true>({
  ...invitationFields,
  token: Joi.string()
    .pattern(/^invtok_/)
    .required()
    .description('The credential of POST /invitations/accept: shown once, valid 7 days, single use'),
}).id('NewInvitation');
