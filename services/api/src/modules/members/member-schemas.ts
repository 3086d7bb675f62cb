import Joi from 'joi';
import { Role } from '@worktrack/db';
import { pageQuery } from '../../http/pagination';

const role = Joi.string().valid(...Object.values(Role));

export const memberParams = Joi.object<{ userId: string }, true>({ userId: Joi.string().max(100).required() });
export const listMembersQuery = Joi.object<{ role?: Role; limit: number; offset: number }, true>({ role, ...pageQuery });
export const inviteBody = Joi.object<{ email: string; role: Role }, true>({
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(320).required(),
  role: role.required(),
});
export const invitationParams = Joi.object<{ invitationId: string }, true>({ invitationId: Joi.string().max(100).required() });
export const listInvitationsQuery = Joi.object<{ limit: number; offset: number }, true>({ ...pageQuery });
export const updateMemberBody = Joi.object<{ role: Role }, true>({ role: role.required() });
export const acceptInvitationBody = Joi.object<{ token: string; name: string }, true>({
  token: Joi.string().max(200).required(),
  name: Joi.string().trim().min(1).max(200).required(),
});
