import Joi from 'joi';
import { Role } from '@worktrack/db';
import type { MemberRecord } from '@worktrack/events';
import { creationOrder, defineListOrder } from '../../http/list-order';
import { pageQuery, type PageParams } from '../../http/pagination';
import type { InvitationRecord } from './invitation-record';
import { nameString } from '../../http/names';

const role = Joi.string().valid(...Object.values(Role));

export const memberParams = Joi.object<{ userId: string }, true>({ userId: Joi.string().max(100).required() });
/** In the order they joined; a member record has no createdAt. */
export const memberOrder = defineListOrder<'joinedAt', MemberRecord>({
  name: 'members',
  default: 'joinedAt',
  fields: { joinedAt: { value: (member) => member.joinedAt } },
});
export const listMembersQuery = Joi.object<PageParams<'joinedAt'> & { role?: Role }, true>({ role, ...pageQuery(memberOrder) });
export const inviteBody = Joi.object<{ email: string; role: Role }, true>({
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(320).required(),
  role: role.required(),
});
export const invitationParams = Joi.object<{ invitationId: string }, true>({ invitationId: Joi.string().max(100).required() });
export const invitationOrder = creationOrder<InvitationRecord>('invitations', '-createdAt');
export const listInvitationsQuery = Joi.object<PageParams<'createdAt'>, true>({ ...pageQuery(invitationOrder) });
export const updateMemberBody = Joi.object<{ role: Role }, true>({ role: role.required() });
export const acceptInvitationBody = Joi.object<{ token: string; name: string }, true>({
  token: Joi.string().max(200).required(),
  name: nameString(200).required(),
});
