import type { Request } from 'express';
import { doubleCsrf } from 'csrf-csrf';
import { requireDashboard } from './context';

export const CSRF_FIELD = '_csrf';

/**
 * csrf-csrf's signed double-submit tokens, bound to the session: keyed with the session's own
 * secret and naming its id, so a token from another session (or none) is refused. Every form
 * carries the token in CSRF_FIELD; every POST is checked.
 */
export function csrfProtection(secure: boolean) {
  return doubleCsrf({
    getSecret: (req?: Request) => requireDashboard(req!).session.csrfSecret,
    getSessionIdentifier: (req) => requireDashboard(req).session.id,
    cookieName: 'wt_csrf',
    cookieOptions: { sameSite: 'strict', path: '/dashboard', secure, httpOnly: true },
    getCsrfTokenFromRequest: (req) => (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD] as string | undefined,
  });
}
