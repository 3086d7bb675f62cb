import type { Membership, User } from '@worktrack/db';
import type { MemberRecord } from '@worktrack/events';

export function toMemberRecord(membership: Membership & { user: User }): MemberRecord {
  return {
    id: membership.userId,
    email: membership.user.email,
    name: membership.user.name,
    role: membership.role,
    joinedAt: membership.joinedAt.toISOString(),
  };
}
