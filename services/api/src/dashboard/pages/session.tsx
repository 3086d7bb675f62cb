import type { Router, RequestHandler } from 'express';
import type { DoubleCsrfUtilities } from 'csrf-csrf';
import Joi from 'joi';
import { Mode } from '@worktrack/db';
import { invalid } from '../../http/errors';
import { mailSignInLinks } from '../../modules/dashboard-links/mail-sign-in-links';
import { SIGN_IN_PATH } from '../../modules/dashboard-links/issue-dashboard-link';
import { requireDashboard } from '../context';
import { takeFlash } from '../flash';
import { formOf, text } from '../form';
import { redirectDone } from '../notices';
import type { DashboardApp } from '../dashboard-app';
import { sameOriginOnly } from '../same-origin';
import { endSession, findSession, openSession, SESSION_TTL_MS, sessionTenant, switchMode, type OpenedSession } from '../session';
import { withinSignInLimits } from '../sign-in-limits';
import { TextField } from '../views/components';
import { renderBarePage } from '../views/render';
import { invitationPages } from './invitations';

const SESSION_COOKIE = 'wt_session';

const emailSchema = Joi.string().trim().lowercase().email({ tlds: false }).max(320).required();

function SignInForm({ email, problem }: { email?: string; problem?: string }) {
  return (
    <form method="post" action={SIGN_IN_PATH} aria-label="Sign in by email" class="card">
      <TextField
        name="email"
        type="email"
        label="Your work email"
        autocomplete="email"
        required
        value={email}
        problem={problem ? { status: 400, message: problem, param: 'email' } : undefined}
      />
      <button type="submit">Email me a sign-in link</button>
    </form>
  );
}

function OtherWays({ publicBaseUrl }: { publicBaseUrl: string }) {
  return (
    <details>
      <summary>Other ways to get a link</summary>
      <ul>
        <li>
          from an operator: <code>pnpm cli dashboard-link --email you@example.com</code>
        </li>
        <li>
          with your live API key: <code>curl -X POST {publicBaseUrl}/v1/dashboard-links -H "Authorization: Bearer tk_live_..."</code>
        </li>
      </ul>
    </details>
  );
}

function HowToSignIn({ publicBaseUrl }: { publicBaseUrl: string }) {
  return (
    <>
      <p>There are no passwords: we email you a link that signs you in once, within 15 minutes.</p>
      <SignInForm />
      <OtherWays publicBaseUrl={publicBaseUrl} />
    </>
  );
}

/** Signing in (by email or with a link), the session every other page needs, signing out, and the live/test switch. */
export function sessionPages(router: Router, app: DashboardApp, { secure, csrf }: { secure: boolean; csrf: DoubleCsrfUtilities }): void {
  const { deps, assets } = app;
  const { publicBaseUrl } = deps.config;
  const cookie = { httpOnly: true, sameSite: 'lax', secure, path: '/dashboard' } as const;
  const signIn = SIGN_IN_PATH.replace('/dashboard', '');
  const startSession = (res: Parameters<RequestHandler>[1], opened: OpenedSession) =>
    res.cookie(SESSION_COOKIE, opened.token, { ...cookie, maxAge: SESSION_TTL_MS });

  router.get(signIn, async (req, res) => {
    const token = req.query.token;
    if (typeof token !== 'string' || token === '') {
      if (req.query.sent !== undefined) {
        renderBarePage(res, assets, {
          title: 'Check your email',
          status: 200,
          body: (
            <>
              <p>If the address belongs to a member, a sign-in link is on its way. It works once, within 15 minutes.</p>
              <p>
                Nothing after a few minutes? Check the spam folder, or <a href={SIGN_IN_PATH}>ask again</a>.
              </p>
            </>
          ),
        });
        return;
      }
      const signedOut = req.query['signed-out'] !== undefined;
      renderBarePage(res, assets, { title: signedOut ? 'You are signed out' : 'Sign in', status: 200, body: <HowToSignIn publicBaseUrl={publicBaseUrl} /> });
      return;
    }
    const opened = await openSession(deps.unscoped, token);
    if (!opened) {
      renderBarePage(res, assets, {
        title: 'This sign-in link does not work',
        status: 401,
        body: (
          <>
            <p>It is unknown, was already used, or has expired: each link opens one session, within 15 minutes. Ask for a new one:</p>
            <SignInForm />
          </>
        ),
      });
      return;
    }
    startSession(res, opened);
    res.redirect(303, '/dashboard');
  });

  // The same answer, and as fast, whether or not the address is a member's: the mail goes out after it.
  router.post(signIn, sameOriginOnly(publicBaseUrl), async (req, res) => {
    const typed = text(formOf(req), 'email');
    const { value: email, error } = emailSchema.validate(typed);
    if (error) {
      renderBarePage(res, assets, {
        title: 'Sign in',
        status: 400,
        body: <SignInForm email={typed} problem="Enter an email address, like ada@example.com." />,
      });
      return;
    }
    if (!(await withinSignInLimits(deps, email, req.ip ?? 'unknown'))) {
      renderBarePage(res, assets, {
        title: 'Too many sign-in requests',
        status: 429,
        body: <p>Links were asked for this address, or from this network, too often. Use the last link you received, or try again in 15 minutes.</p>,
      });
      return;
    }
    mailSignInLinks(deps, email).catch((err: unknown) => deps.logger.error({ err }, 'sign-in link not mailed'));
    res.redirect(303, `${SIGN_IN_PATH}?sent`);
  });

  invitationPages(router, app, { startSession });

  const requireSession: RequestHandler = async (req, res, next) => {
    const token: unknown = req.cookies?.[SESSION_COOKIE];
    const session = typeof token === 'string' ? await findSession(deps.unscoped, token) : null;
    if (!session) {
      res.clearCookie(SESSION_COOKIE, cookie);
      if (req.method === 'GET') {
        res.redirect(303, SIGN_IN_PATH);
        return;
      }
      renderBarePage(res, assets, { title: 'Your session has ended', status: 401, body: <HowToSignIn publicBaseUrl={publicBaseUrl} /> });
      return;
    }
    const tenant = sessionTenant(session);
    // The access log names the organization, as for API keys.
    req.tenant = tenant;
    req.dashboard = { session, tenant, csrfToken: '', disabledWebhooks: [] };
    req.dashboard.csrfToken = csrf.generateCsrfToken(req, res);
    if (req.method === 'GET') {
      req.dashboard.flash = await takeFlash(req, deps);
      if (tenant.permissions.has('webhooks:read')) req.dashboard.disabledWebhooks = await deps.data(tenant).webhooks.listDisabled();
    }
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
