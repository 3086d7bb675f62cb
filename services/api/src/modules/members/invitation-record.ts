import type { Invitation } from '@worktrack/db';

/** An invitation as the API shows it; the token is shown once, by the invite itself, and never stored. */
export function toInvitationRecord(invitation: Invitation) {
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
export const pendingInvitations = (organizationId: string) => ({ organizationId, status: 'pending' as const, expiresAt: { gt: new Date() } });

export const revocation = () => ({ status: 'revoked' as const, revokedAt: new Date() });
