import type { Role } from '../generated/prisma/enums';
import { newId } from '../ids';
import { advisoryLock, type TenantConn } from './connection';
import { insertApiKey, type NewApiKey } from './sign-in';
import { prismaWindow, type PageWindow } from './listing';

const withUser = { user: true } as const;

/**
 * The organization's members, invitations, API keys and dashboard sign-ins: they belong to the
 * organization, shared by its live and test data, so they are scoped by the organization alone.
 */
export function members({ conn, scope: { organizationId } }: TenantConn) {
  const key = (userId: string) => ({ organizationId_userId: { organizationId, userId } });
  return {
    /** The one lookup of a member, with the user. */
    find: (userId: string) => conn.membership.findUnique({ where: key(userId), include: withUser }),
    findByEmail: (email: string) => conn.membership.findFirst({ where: { organizationId, user: { email } } }),
    /** How many of these users are members. */
    countOf: (userIds: string[]) => conn.membership.count({ where: { organizationId, userId: { in: userIds } } }),
    countAdmins: () => conn.membership.count({ where: { organizationId, role: 'admin' } }),
    /**
     * Serializes membership changes of the organization for the rest of the transaction, so two
     * concurrent demotions can never both pass the last-admin check.
     */
    lockAll: () => advisoryLock(conn, `memberships:${organizationId}`),
    add: (userId: string, role: Role) => conn.membership.create({ data: { organizationId, userId, role }, include: withUser }),
    setRole: (userId: string, role: Role) => conn.membership.update({ where: key(userId), data: { role }, include: withUser }),
    /** Removes the membership and revokes what the user holds here: keys, pending invitations sent, dashboard sessions and links. */
    remove: async (userId: string) => {
      const now = new Date();
      await conn.membership.delete({ where: key(userId) });
      await conn.apiKey.updateMany({ where: { organizationId, userId, revokedAt: null }, data: { revokedAt: now } });
      await conn.invitation.updateMany({ where: { ...pending(organizationId), invitedById: userId }, data: { status: 'revoked', revokedAt: now } });
      await conn.dashboardSession.deleteMany({ where: { organizationId, userId } });
      await conn.dashboardLink.deleteMany({ where: { organizationId, userId } });
    },
    list: ({ role }: { role?: Role }) => {
      const where = { organizationId, ...(role && { role }) };
      return {
        rows: (window: PageWindow<'joinedAt'>) => conn.membership.findMany({ ...prismaWindow(where, window, 'userId'), include: withUser }),
        total: () => conn.membership.count({ where }),
      };
    },
  };
}

/** Invitations that can still be accepted. */
const pending = (organizationId: string) => ({ organizationId, status: 'pending' as const, expiresAt: { gt: new Date() } });

export function invitations({ conn, scope: { organizationId } }: TenantConn) {
  return {
    create: (invitation: { email: string; role: Role; tokenHash: string; invitedById: string; expiresAt: Date }) =>
      conn.invitation.create({ data: { id: newId('invitation'), organizationId, ...invitation } }),
    /**
     * Accepts a pending invitation of the organization: claims it, then creates (or reuses) the user
     * and the membership. Null when it was claimed meanwhile; `already` when the user is a member.
     */
    accept: async (invitation: { id: string; email: string; role: Role }, name: string) => {
      const claimed = await conn.invitation.updateMany({
        where: { id: invitation.id, organizationId, status: 'pending' },
        data: { status: 'accepted', acceptedAt: new Date() },
      });
      if (claimed.count === 0) return null;
      const user = await conn.user.upsert({ where: { email: invitation.email }, create: { id: newId('user'), email: invitation.email, name }, update: {} });
      if (await conn.membership.findUnique({ where: { organizationId_userId: { organizationId, userId: user.id } } })) return { already: true as const };
      const membership = await conn.membership.create({ data: { organizationId, userId: user.id, role: invitation.role }, include: withUser });
      return { already: false as const, membership };
    },
    /** Revokes a pending invitation; whether there was one. */
    revoke: async (id: string) =>
      (await conn.invitation.updateMany({ where: { ...pending(organizationId), id }, data: { status: 'revoked', revokedAt: new Date() } })).count > 0,
    listPending: () => {
      const where = pending(organizationId);
      return {
        rows: (window: PageWindow<'createdAt'>) => conn.invitation.findMany(prismaWindow(where, window)),
        total: () => conn.invitation.count({ where }),
      };
    },
  };
}

export function apiKeys({ conn, scope: { organizationId } }: TenantConn) {
  return {
    /** Creates a key of the organization (its hash and display prefix; the key itself is never stored). */
    insert: (key: NewApiKey) => insertApiKey(conn, { ...key, organizationId }),
    /** Revokes a key of the organization that is not revoked yet; whether there was one. */
    revoke: async (id: string) => (await conn.apiKey.updateMany({ where: { id, organizationId, revokedAt: null }, data: { revokedAt: new Date() } })).count > 0,
    list: () => ({
      rows: (window: PageWindow<'createdAt'>) => conn.apiKey.findMany(prismaWindow({ organizationId }, window)),
      total: () => conn.apiKey.count({ where: { organizationId } }),
    }),
  };
}
