import { randomBytes } from 'node:crypto';
import type { Mode, SessionRow, TenantTx, UnscopedData } from '@worktrack/db';
import type { Tenant } from '../http/auth';
import { effectivePermissions } from '../http/permissions';
import { hashDashboardToken } from '../modules/dashboard-links/issue-dashboard-link';

/** docs/decisions.md#dashboard: a session lasts 12 hours from sign-in. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

export type DashboardSession = SessionRow;

/**
 * Consumes a sign-in link, once and before it expires, and opens a session for its member in
 * live mode. Returns the cookie's token, or null for an unknown, used or expired link, or one
 * whose user has left the organization.
 */
export async function openSession(data: UnscopedData, linkToken: string): Promise<OpenedSession | null> {
  const { token, session } = newSession();
  const opened = await data.signIn.openSession(hashDashboardToken(linkToken), session);
  return opened ? { token, expiresAt: session.expiresAt } : null;
}

export interface OpenedSession {
  token: string;
  expiresAt: Date;
}

/** A new session's cookie token and what is stored of it (its hash). */
function newSession() {
  const token = randomBytes(32).toString('base64url');
  const session = { tokenHash: hashDashboardToken(token), csrfSecret: randomBytes(32).toString('base64url'), expiresAt: new Date(Date.now() + SESSION_TTL_MS) };
  return { token, session };
}

/** A new session of a member of the tenant's organization, in live mode: the cookie's token. */
export async function createSession(tx: TenantTx, userId: string): Promise<OpenedSession> {
  const { token, session } = newSession();
  await tx.dashboardSessions.create(userId, session);
  return { token, expiresAt: session.expiresAt };
}

/** The session a cookie names, with the user's current role; an expired session, or one whose user left, is none. */
export const findSession = (data: UnscopedData, token: string) => data.signIn.findSession(hashDashboardToken(token));

export const endSession = (data: UnscopedData, sessionId: string) => data.signIn.endSession(sessionId);

export const switchMode = (data: UnscopedData, sessionId: string, mode: Mode) => data.signIn.switchMode(sessionId, mode);

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
    // Changes made in the dashboard name the user and no key.
    actor: { type: 'user', userId: session.userId, apiKeyId: null },
  };
}
