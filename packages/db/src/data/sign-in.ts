import { queryOnPool, type SqlPool } from '../client';
import { Prisma } from '../generated/prisma/client';
import type { Conn } from './connection';
import type { Mode, Plan, Role } from '../generated/prisma/enums';
import { newId } from '../ids';

/** What an API key or a dashboard session resolves to: its organization, user, role and mode. */
export interface KeyRow {
  keyId: string;
  organizationId: string;
  organizationName: string;
  plan: Plan;
  dailyQuota: number | null;
  userId: string;
  mode: Mode;
  permissions: string[];
  role: Role;
  expiresAt: Date | null;
}

export interface SessionRow {
  id: string;
  organizationId: string;
  organizationName: string;
  plan: Plan;
  dailyQuota: number | null;
  userId: string;
  email: string;
  role: Role;
  mode: Mode;
  csrfSecret: string;
  expiresAt: Date;
}

export interface NewApiKey {
  organizationId: string;
  userId: string;
  name: string;
  mode: Mode;
  prefix: string;
  hash: string;
  permissions: string[];
  expiresAt: Date | null;
}

/** Creates a key (its hash and display prefix; the key itself is never stored). */
export const insertApiKey = (conn: Conn, key: NewApiKey) => conn.apiKey.create({ data: { id: newId('apiKey'), ...key } });

/** Sign-in links to the dashboard, kept as the hash of their token. */
export function dashboardLinks(conn: Conn) {
  return {
    create: (link: { organizationId: string; userId: string; tokenHash: string; expiresAt: Date }) =>
      conn.dashboardLink.create({ data: { id: newId('dashboardLink'), ...link } }),
  };
}

export interface NewSession {
  tokenHash: string;
  csrfSecret: string;
  expiresAt: Date;
}

/** A member's dashboard session, in live mode, kept as the hash of its token. */
export const insertSession = (conn: Conn, member: { organizationId: string; userId: string }, session: NewSession) =>
  conn.dashboardSession.create({ data: { id: newId('dashboardSession'), organizationId: member.organizationId, userId: member.userId, ...session } });

export interface MembershipOfEmail {
  organizationId: string;
  organizationName: string;
  userId: string;
}

interface LinkPreview {
  email: string;
  organizationName: string;
}

export interface InvitationPreview {
  email: string;
  role: string;
  organizationName: string;
  invitedBy: string;
  expiresAt: Date;
}

/**
 * The tenant of an API key, in one query; undefined for a revoked or expired key, or one whose user is
 * no longer a member. On the pool: each replica asks it for every key in use once a second.
 */
export async function resolveKey(pool: SqlPool, hash: string): Promise<KeyRow | undefined> {
  const [row] = await queryOnPool<KeyRow>(
    pool,
    Prisma.sql`
      SELECT k.id AS "keyId", k."organizationId", o.name AS "organizationName", o.plan::text AS plan,
             o."dailyQuota", k."userId", k.mode::text AS mode, k.permissions, m.role::text AS role, k."expiresAt"
      FROM "ApiKey" k
      JOIN "Organization" o ON o.id = k."organizationId"
      JOIN "Membership" m ON m."organizationId" = k."organizationId" AND m."userId" = k."userId"
      WHERE k.hash = ${hash}
        AND k."revokedAt" IS NULL
        AND (k."expiresAt" IS NULL OR k."expiresAt" > now())`,
  );
  return row;
}

/**
 * Lookups by a credential (an API key's hash, a session's or link's token hash), before any tenant
 * is known: they find the tenant.
 */
export function signIn(conn: Conn) {
  return {
    /**
     * Consumes a sign-in link, once and before it expires, and opens a session for its member in
     * live mode. False for an unknown, used or expired link, or one whose user has left.
     */
    openSession: (linkHash: string, session: NewSession) =>
      transaction(conn, async (tx) => {
        const now = new Date();
        const [link] = await tx.dashboardLink.updateManyAndReturn({
          where: { tokenHash: linkHash, usedAt: null, expiresAt: { gt: now } },
          data: { usedAt: now },
        });
        if (!link) return false;
        const membership = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId: link.organizationId, userId: link.userId } } });
        if (!membership) return false;
        await insertSession(tx, link, session);
        return true;
      }),

    /** Whom a sign-in link would sign in, where, while it can still be used; null otherwise. Spends nothing. */
    pendingLink: async (linkHash: string): Promise<LinkPreview | null> => {
      const link = await conn.dashboardLink.findFirst({
        where: { tokenHash: linkHash, usedAt: null, expiresAt: { gt: new Date() } },
        select: { organizationId: true, userId: true, user: { select: { email: true } }, organization: { select: { name: true } } },
      });
      if (!link) return null;
      const membership = await conn.membership.findUnique({ where: { organizationId_userId: { organizationId: link.organizationId, userId: link.userId } } });
      return membership && { email: link.user.email, organizationName: link.organization.name };
    },

    /** The session a cookie names, with the user's current role, in one query; none once expired or the user left. */
    findSession: async (tokenHash: string): Promise<SessionRow | null> => {
      const rows = await conn.$queryRaw<SessionRow[]>`
        SELECT s.id, s."organizationId", o.name AS "organizationName", o.plan::text AS plan, o."dailyQuota",
               s."userId", u.email, m.role::text AS role, s.mode::text AS mode, s."csrfSecret", s."expiresAt"
        FROM "DashboardSession" s
        JOIN "Organization" o ON o.id = s."organizationId"
        JOIN "Membership" m ON m."organizationId" = s."organizationId" AND m."userId" = s."userId"
        JOIN "User" u ON u.id = s."userId"
        WHERE s."tokenHash" = ${tokenHash} AND s."expiresAt" > now()`;
      return rows[0] ?? null;
    },
    endSession: async (id: string) => void (await conn.dashboardSession.deleteMany({ where: { id } })),
    switchMode: async (id: string, mode: Mode) => void (await conn.dashboardSession.update({ where: { id }, data: { mode } })),

    /** An invitation by its token's hash. */
    findInvitation: (tokenHash: string) => conn.invitation.findUnique({ where: { tokenHash } }),

    /** What an invitation's accept page shows, while it can still be accepted; null otherwise. */
    pendingInvitation: async (tokenHash: string): Promise<InvitationPreview | null> => {
      const invitation = await conn.invitation.findUnique({ where: { tokenHash }, include: { organization: { select: { name: true } } } });
      if (invitation?.status !== 'pending' || invitation.expiresAt <= new Date()) return null;
      const inviter = await conn.user.findUnique({ where: { id: invitation.invitedById }, select: { email: true, name: true } });
      return {
        email: invitation.email,
        role: invitation.role,
        organizationName: invitation.organization.name,
        invitedBy: inviter?.name ?? inviter?.email ?? 'An admin',
        expiresAt: invitation.expiresAt,
      };
    },

    /** Every organization an address is a member of (sign-in by email mails a link for each). */
    membershipsOfEmail: async (email: string): Promise<MembershipOfEmail[]> => {
      const rows = await conn.membership.findMany({
        where: { user: { email } },
        select: { organizationId: true, userId: true, organization: { select: { name: true } } },
        orderBy: { organizationId: 'asc' },
      });
      return rows.map((row) => ({ organizationId: row.organizationId, organizationName: row.organization.name, userId: row.userId }));
    },
  };
}

/** Runs `work` in a transaction, or in the caller's when `conn` is one already. */
function transaction<T>(conn: Conn, work: (tx: Conn) => Promise<T>): Promise<T> {
  return '$transaction' in conn ? conn.$transaction((tx) => work(tx)) : work(conn);
}
