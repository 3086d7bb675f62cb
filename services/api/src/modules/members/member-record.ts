import Joi from 'joi';
import { Role, type Membership, type User } from '@worktrack/db';
import type { MemberRecord } from '@worktrack/events';
import { out } from '../../http/record-fields';

/** A membership with its user: what the member finder returns (membership-rules.ts `findMember`). */
export type Member = Membership & { user: User };

export function toMemberRecord(membership: Member): MemberRecord {
  return {
    id: membership.userId,
    email: membership.user.email,
    name: membership.user.name,
    role: membership.role,
    joinedAt: membership.joinedAt.toISOString(),
  };
}

export const memberRecordSchema = Joi.object<MemberRecord, true>({
  id: out.id('usr').description('The user id'),
  email: Joi.string().required().example('ada@example.com'),
  name: out.nullableString(),
  role: Joi.string()
    .valid(...Object.values(Role))
    .required(),
  joinedAt: out.timestamp(),
}).id('Member');
