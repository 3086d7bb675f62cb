import { randomBytes } from 'node:crypto';
import type { Mode, SessionRow, UnscopedData } from '@worktrack/db';
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
export async function openSession(data: UnscopedData, linkToken: string): Promise<{ token: string; expiresAt: Date } | null> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  const opened = await data.signIn.openSession(hashDashboardToken(linkToken), {
    tokenHash: hashDashboardToken(token),
    csrfSecret: randomBytes(32).toString('base64url'),
    expiresAt,
  });
  return opened ? { token, expiresAt } : null;
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
  };
}
