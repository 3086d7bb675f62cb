import { randomBytes } from 'node:crypto';
import { newId, type Db, type Mode, type Plan, type Role, type Tx } from '@worktrack/db';
import type { Tenant } from '../http/auth';
import { effectivePermissions } from '../http/permissions';
import { hashDashboardToken } from '../modules/dashboard-links/issue-dashboard-link';

/** docs/decisions.md#dashboard: a session lasts 12 hours from sign-in. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

export interface DashboardSession {
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

/**
 * Consumes a sign-in link, once and before it expires, and opens a session for its member in
 * live mode. Returns the cookie's token, or null for an unknown, used or expired link, or one
 * whose user has left the organization.
 */
export async function openSession(db: Db, linkToken: string): Promise<OpenedSession | null> {
  return db.$transaction(async (tx) => {
    const now = new Date();
    const [link] = await tx.dashboardLink.updateManyAndReturn({
      where: { tokenHash: hashDashboardToken(linkToken), usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (!link) return null;
    const membership = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId: link.organizationId, userId: link.userId } } });
    if (!membership) return null;
    return createSession(tx, link);
  });
}

export interface OpenedSession {
  token: string;
  expiresAt: Date;
}

/** A new session of a member, in live mode: the cookie's token (only its hash is stored). */
export async function createSession(tx: Tx, member: { organizationId: string; userId: string }): Promise<OpenedSession> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await tx.dashboardSession.create({
    data: {
      id: newId('dashboardSession'),
      organizationId: member.organizationId,
      userId: member.userId,
      tokenHash: hashDashboardToken(token),
      csrfSecret: randomBytes(32).toString('base64url'),
      expiresAt,
    },
  });
  return { token, expiresAt };
}

/**
 * The session a cookie names, with the user's current role, in one query. An expired session, or
 * one whose user is no longer a member, is no session.
 */
export async function findSession(db: Db, token: string): Promise<DashboardSession | null> {
  const rows = await db.$queryRaw<DashboardSession[]>`
    SELECT s.id, s."organizationId", o.name AS "organizationName", o.plan::text AS plan, o."dailyQuota",
           s."userId", u.email, m.role::text AS role, s.mode::text AS mode, s."csrfSecret", s."expiresAt"
    FROM "DashboardSession" s
    JOIN "Organization" o ON o.id = s."organizationId"
    JOIN "Membership" m ON m."organizationId" = s."organizationId" AND m."userId" = s."userId"
    JOIN "User" u ON u.id = s."userId"
    WHERE s."tokenHash" = ${hashDashboardToken(token)} AND s."expiresAt" > now()`;
  return rows[0] ?? null;
}

export async function endSession(db: Db, sessionId: string): Promise<void> {
  await db.dashboardSession.deleteMany({ where: { id: sessionId } });
}

export async function switchMode(db: Db, sessionId: string, mode: Mode): Promise<void> {
  await db.dashboardSession.update({ where: { id: sessionId }, data: { mode } });
}

/**
 * The tenant the session acts as: its user's role in its mode, exactly as a `*` key of that user
 * and mode would (so a test-mode session, like a test key, never manages members or keys).
 */
export function sessionTenant(session: DashboardSession): Tenant {
  return {
    organizationId: session.organizationId,
    organizationName: session.organizationName,
    plan: session.plan,
    dailyQuota: session.dailyQuota,
    mode: session.mode,
    userId: session.userId,
    role: session.role,
    // Names what acts: an idempotency record or a log line made for the session is its own.
    keyId: session.id,
    permissions: effectivePermissions(['*'], session.role, session.mode),
  };
}
