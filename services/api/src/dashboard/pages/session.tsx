import type { Router, RequestHandler } from 'express';
import type { DoubleCsrfUtilities } from 'csrf-csrf';
import { Mode } from '@worktrack/db';
import { invalid } from '../../http/errors';
import { SIGN_IN_PATH } from '../../modules/dashboard-links/issue-dashboard-link';
import { requireDashboard } from '../context';
import { formOf, text } from '../form';
import { redirectDone } from '../notices';
import type { DashboardApp } from '../dashboard-app';
import { endSession, findSession, openSession, SESSION_TTL_MS, sessionTenant, switchMode } from '../session';
import { renderBarePage } from '../views/render';

const SESSION_COOKIE = 'wt_session';

function HowToSignIn() {
  return (
    <>
      <p>The dashboard opens with a one-time sign-in link, valid 15 minutes. Get one:</p>
      <ul>
        <li>
          from an operator: <code>pnpm cli dashboard-link --email you@example.com</code>
        </li>
        <li>
          with your live API key: <code>curl -X POST {'<base URL>'}/v1/dashboard-links -H "Authorization: Bearer tk_live_..."</code>
        </li>
      </ul>
    </>
  );
}

/** Signing in with a link, the session every other page needs, signing out, and the live/test switch. */
export function sessionPages(router: Router, { deps, assets }: DashboardApp, { secure, csrf }: { secure: boolean; csrf: DoubleCsrfUtilities }): void {
  const cookie = { httpOnly: true, sameSite: 'lax', secure, path: '/dashboard' } as const;

  router.get(SIGN_IN_PATH.replace('/dashboard', ''), async (req, res) => {
    const token = req.query.token;
    if (typeof token !== 'string' || token === '') {
      const signedOut = req.query['signed-out'] !== undefined;
      renderBarePage(res, assets, { title: signedOut ? 'You are signed out' : 'Sign in', status: 200, body: <HowToSignIn /> });
      return;
    }
    const opened = await openSession(deps.unscoped, token);
    if (!opened) {
      renderBarePage(res, assets, {
        title: 'This sign-in link does not work',
        status: 401,
        body: (
          <>
            <p>It is unknown, was already used, or has expired: each link opens one session, within 15 minutes.</p>
            <HowToSignIn />
          </>
        ),
      });
      return;
    }
    res.cookie(SESSION_COOKIE, opened.token, { ...cookie, maxAge: SESSION_TTL_MS });
    res.redirect(303, '/dashboard');
  });

  const requireSession: RequestHandler = async (req, res, next) => {
    const token: unknown = req.cookies?.[SESSION_COOKIE];
    const session = typeof token === 'string' ? await findSession(deps.unscoped, token) : null;
    if (!session) {
      res.clearCookie(SESSION_COOKIE, cookie);
      if (req.method === 'GET') {
        res.redirect(303, SIGN_IN_PATH);
        return;
      }
      renderBarePage(res, assets, { title: 'Your session has ended', status: 401, body: <HowToSignIn /> });
      return;
    }
    const tenant = sessionTenant(session);
    // The access log names the organization, as for API keys.
    req.tenant = tenant;
    req.dashboard = { session, tenant, csrfToken: '' };
    req.dashboard.csrfToken = csrf.generateCsrfToken(req, res);
    next();
  };
  router.use(requireSession);

  router.post('/sign-out', csrf.doubleCsrfProtection, async (req, res) => {
    await endSession(deps.unscoped, requireDashboard(req).session.id);
    res.clearCookie(SESSION_COOKIE, cookie);
    res.redirect(303, `${SIGN_IN_PATH}?signed-out`);
  });

  router.post('/mode', csrf.doubleCsrfProtection, async (req, res) => {
    const form = formOf(req);
    const mode = text(form, 'mode');
    const next = text(form, 'next');
    if (!(mode in Mode)) throw invalid('mode', 'mode must be live or test');
    await switchMode(deps.unscoped, requireDashboard(req).session.id, mode as Mode);
    // Only a page of the dashboard: never an address given from outside.
    redirectDone(res, /^\/dashboard(\/[a-z-]+)?$/.test(next) ? next : '/dashboard', 'mode-switched');
  });
}
