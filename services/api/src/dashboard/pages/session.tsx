import type { Request, Response, Router, RequestHandler } from 'express';
import type { DoubleCsrfUtilities } from 'csrf-csrf';
import Joi from 'joi';
import { Mode } from '@worktrack/db';
import { invalid } from '../../http/errors';
import { mailSignInLinks } from '../../modules/dashboard-links/mail-sign-in-links';
import { DASHBOARD_LINK_TTL_MS, hashDashboardToken, SIGN_IN_PATH } from '../../modules/dashboard-links/issue-dashboard-link';
import { heldToken } from '../held-token';
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
/** The page a sign-in link leads to, whose one button signs in (docs/decisions.md#signing-in-safely). */
const SIGN_IN_LINK_PATH = `${SIGN_IN_PATH}/link`;

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

function LinkDoesNotWork() {
  return (
    <>
      <p>It is unknown, was already used, or has expired: each link opens one session, within 15 minutes. Ask for a new one:</p>
      <SignInForm />
    </>
  );
}

/** Signing in (by email or with a link), the session every other page needs, signing out, and the live/test switch. */
export function sessionPages(router: Router, app: DashboardApp, { secure, csrf }: { secure: boolean; csrf: DoubleCsrfUtilities }): void {
  const { deps, assets } = app;
  const { publicBaseUrl } = deps.config;
  const cookie = { httpOnly: true, sameSite: 'lax', secure, path: '/dashboard' } as const;
  const signIn = SIGN_IN_PATH.replace('/dashboard', '');
  const linkPage = SIGN_IN_LINK_PATH.replace('/dashboard', '');
  const linkToken = heldToken({ name: 'wt_link', path: SIGN_IN_PATH, secure, maxAgeMs: DASHBOARD_LINK_TTL_MS });
  const startSession = (res: Parameters<RequestHandler>[1], opened: OpenedSession) =>
    res.cookie(SESSION_COOKIE, opened.token, { ...cookie, maxAge: SESSION_TTL_MS });
  const linkDoesNotWork = (req: Request, res: Response) => {
    linkToken.drop(req, res);
    renderBarePage(res, assets, { title: 'This sign-in link does not work', status: 401, body: <LinkDoesNotWork /> });
  };

  router.get(signIn, (req, res) => {
    const token = req.query.token;
    // Opening a link spends nothing (a mail scanner opens links too): its page's button signs in.
    if (typeof token === 'string' && token !== '') {
      linkToken.hold(res, token);
      res.redirect(303, SIGN_IN_LINK_PATH);
      return;
    }
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
  });

  router.get(linkPage, async (req, res) => {
    const token = linkToken.read(req);
    const link = token && (await deps.unscoped.signIn.pendingLink(hashDashboardToken(token)));
    if (!link) return linkDoesNotWork(req, res);
    renderBarePage(res, assets, {
      title: `Sign in to ${link.organizationName}`,
      status: 200,
      body: (
        <form method="post" action={SIGN_IN_LINK_PATH} aria-label="Sign in with this link" class="card">
          <p>
            This link signs <strong>{link.email}</strong> in to <strong>{link.organizationName}</strong>. Did you ask for it? If not, close this page.
          </p>
          <button type="submit">Sign in</button>
        </form>
      ),
    });
  });

  router.post(linkPage, sameOriginOnly(publicBaseUrl), async (req, res) => {
    const token = linkToken.read(req);
    const opened = token && (await openSession(deps.unscoped, token));
    if (!opened) return linkDoesNotWork(req, res);
    linkToken.drop(req, res);
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
        body: <p>Links were asked for this address, or from this network, too often. Use the last link you received, or try again later.</p>,
      });
      return;
    }
    mailSignInLinks(deps, email).catch((err: unknown) => deps.logger.error({ err }, 'sign-in link not mailed'));
    res.redirect(303, `${SIGN_IN_PATH}?sent`);
  });

  invitationPages(router, app, { startSession, secure });

  const requireSession: RequestHandler = async (req, res, next) => {
    const token: unknown = req.cookies?.[SESSION_COOKIE];
    const session = typeof token === 'string' ? await findSession(deps.unscoped, token) : null;
    if (!session) {
      // Only a cookie that came with the request is cleared: a POST from another site arrives without
      // the SameSite=Lax cookie, and must not sign the visitor out.
      if (token !== undefined) res.clearCookie(SESSION_COOKIE, cookie);
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
