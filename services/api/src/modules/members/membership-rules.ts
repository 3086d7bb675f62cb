import type { Role, TenantTx } from '@worktrack/db';
import type { Tenant } from '../../http/auth';
import { ApiError, conflict, forbidden, notFound } from '../../http/errors';
import { roleExceeds } from '../../http/permissions';
import type { Member } from './member-record';

/** Inviting to or promoting to a role is granting its rights: the calling key must hold them all (docs/decisions.md#tenancy-and-keys). */
export function assertKeyCanGrant(tenant: Tenant, role: Role): void {
  if (roleExceeds(role, tenant.permissions)) throw forbidden(`This API key cannot grant the ${role} role: it lacks some of that role's permissions`, 'role');
}

/**
 * Takes the organization's membership lock for the rest of the transaction (serializing
 * membership changes, so two concurrent demotions never both pass the last-admin check) and checks
 * the caller is still a member: a request authenticated just before its user's removal committed
 * waits for it here, then is refused as that user's revoked keys are (401), so nothing it writes
 * outlives the removal.
 */
export async function lockCallerMembership(tx: TenantTx, tenant: Tenant): Promise<void> {
  await tx.members.lockAll();
  if (!(await tx.members.find(tenant.userId))) throw new ApiError('unauthenticated', 'Invalid API key');
}

/** The organization's member, once the caller's membership is locked and checked, or a 404 naming `userId`. */
export async function lockMember(tx: TenantTx, tenant: Tenant, userId: string): Promise<Member> {
  await lockCallerMembership(tx, tenant);
  const member = await tx.members.find(userId);
  if (!member) throw notFound('userId', 'No such member');
  return member;
}

export async function assertNotLastAdmin(tx: TenantTx): Promise<void> {
  if ((await tx.members.countAdmins()) <= 1) throw conflict('An organization must keep at least one admin', 'userId');
}

/** Members are shared by an organization's live and test data, so their events are live events. */
export function memberEventScope(organizationId: string) {
  return { organizationId, mode: 'live' as const };
}
