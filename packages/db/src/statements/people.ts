import type { Db, Tx } from '../client';

export interface MembershipOfEmail {
  organizationId: string;
  organizationName: string;
  userId: string;
}

/** Every organization an address is a member of (sign-in by email mails a link for each). */
export async function membershipsOfEmail(db: Db, email: string): Promise<MembershipOfEmail[]> {
  const rows = await db.membership.findMany({
    where: { user: { email } },
    select: { organizationId: true, userId: true, organization: { select: { name: true } } },
    orderBy: { organizationId: 'asc' },
  });
  return rows.map((row) => ({ organizationId: row.organizationId, organizationName: row.organization.name, userId: row.userId }));
}

/** The addresses of an organization's admins: who is told when a subscription is disabled. */
export async function adminEmails(db: Db, organizationId: string): Promise<string[]> {
  const rows = await db.membership.findMany({ where: { organizationId, role: 'admin' }, select: { user: { select: { email: true } } } });
  return rows.map((row) => row.user.email);
}

const pending = (organizationId: string) => ({ organizationId, status: 'pending' as const });
const revoked = () => ({ status: 'revoked' as const, revokedAt: new Date() });

/**
 * At most one pending invitation per address and organization: revokes the others to this address
 * (expired ones too, which cost nothing to close), all of them unless one is kept.
 */
export async function revokeInvitationsTo(tx: Tx, organizationId: string, email: string, keepId?: string): Promise<number> {
  const { count } = await tx.invitation.updateMany({
    where: { ...pending(organizationId), email, ...(keepId && { id: { not: keepId } }) },
    data: revoked(),
  });
  return count;
}

/** A removed member leaves no invitation behind: none addressed to them, none they sent. */
export async function revokeInvitationsOfMember(tx: Tx, organizationId: string, member: { userId: string; email: string }): Promise<number> {
  const { count } = await tx.invitation.updateMany({
    where: { ...pending(organizationId), OR: [{ email: member.email }, { invitedById: member.userId }] },
    data: revoked(),
  });
  return count;
}

export interface InvitationPreview {
  email: string;
  role: string;
  organizationName: string;
  invitedBy: string;
  expiresAt: Date;
}

/** What an invitation's accept page shows, while it can still be accepted; null otherwise. */
export async function pendingInvitationByTokenHash(db: Db, tokenHash: string): Promise<InvitationPreview | null> {
  const invitation = await db.invitation.findUnique({ where: { tokenHash }, include: { organization: { select: { name: true } } } });
  if (invitation?.status !== 'pending' || invitation.expiresAt <= new Date()) return null;
  const inviter = await db.user.findUnique({ where: { id: invitation.invitedById }, select: { email: true, name: true } });
  return {
    email: invitation.email,
    role: invitation.role,
    organizationName: invitation.organization.name,
    invitedBy: inviter?.name ?? inviter?.email ?? 'An admin',
    expiresAt: invitation.expiresAt,
  };
}
