import type { Db, Role, Tx } from '@worktrack/db';
import type { Tenant } from '../../http/auth';
import { ApiError, conflict, forbidden, notFound } from '../../http/errors';
import { roleExceeds } from '../../http/permissions';
import type { Member } from './member-record';

/** Inviting to or promoting to a role is granting its rights: the calling key must hold them all (docs/decisions.md#tenancy-and-keys). */
export function assertKeyCanGrant(tenant: Tenant, role: Role): void {
  if (roleExceeds(role, tenant.permissions)) throw forbidden(`This API key cannot grant the ${role} role: it lacks some of that role's permissions`, 'role');
}

/**
 * Serializes membership changes of one organization for the rest of the transaction, so two
 * concurrent demotions can never both pass the last-admin check.
 */
async function lockMemberships(tx: Tx, organizationId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`memberships:${organizationId}`}))`;
}

/** A membership's key: memberships belong to the organization, not to a mode. */
export const memberKey = (organizationId: string, userId: string) => ({ organizationId_userId: { organizationId, userId } });

/**
 * The one lookup of a member, by the organization and the user id, with the user. Members are
 * shared by the organization's live and test data, so there is no mode to scope by.
 */
export function findMember(db: Db | Tx, organizationId: string, userId: string): Promise<Member | null> {
  return db.membership.findUnique({ where: memberKey(organizationId, userId), include: { user: true } });
}

/**
 * Takes the organization's membership lock for the rest of the transaction (`lockMemberships`) and
 * checks the caller is still a member: a request authenticated just before its user's removal
 * committed waits for it here, then is refused as that user's revoked keys are (401), so nothing it
 * writes outlives the removal.
 */
export async function lockCallerMembership(tx: Tx, tenant: Tenant): Promise<void> {
  await lockMemberships(tx, tenant.organizationId);
  if (!(await findMember(tx, tenant.organizationId, tenant.userId))) throw new ApiError('unauthenticated', 'Invalid API key');
}

/** The organization's member, once the caller's membership is locked and checked, or a 404 naming `userId`. */
export async function lockMember(tx: Tx, tenant: Tenant, userId: string): Promise<Member> {
  await lockCallerMembership(tx, tenant);
  const member = await findMember(tx, tenant.organizationId, userId);
  if (!member) throw notFound('userId', 'No such member');
  return member;
}

export async function assertNotLastAdmin(tx: Tx, organizationId: string): Promise<void> {
  const admins = await tx.membership.count({ where: { organizationId, role: 'admin' } });
  if (admins <= 1) throw conflict('An organization must keep at least one admin', 'userId');
}

/** Members are shared by an organization's live and test data, so their events are live events. */
export function memberEventScope(organizationId: string) {
  return { organizationId, mode: 'live' as const };
}
