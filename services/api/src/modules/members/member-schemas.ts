import Joi from 'joi';
import { Role } from '@worktrack/db';
import { pageQuery } from '../../http/pagination';

const role = Joi.string().valid(...Object.values(Role));

export const memberParams = Joi.object<{ userId: string }>({ userId: Joi.string().max(100).required() });
export const listMembersQuery = Joi.object<{ role?: Role; limit: number; offset: number }>({ role, ...pageQuery });
export const inviteBody = Joi.object<{ email: string; role: Role }>({
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(320).required(),
  role: role.required(),
});
export const invitationParams = Joi.object<{ invitationId: string }>({ invitationId: Joi.string().max(100).required() });
export const listInvitationsQuery = Joi.object<{ limit: number; offset: number }>({ ...pageQuery });
export const updateMemberBody = Joi.object<{ role: Role }>({ role: role.required() });
export const acceptInvitationBody = Joi.object<{ token: string; name: string }>({
  token: Joi.string().max(200).required(),
  name: Joi.string().trim().min(1).max(200).required(),
});
