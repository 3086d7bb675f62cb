import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import cookieParser from 'cookie-parser';
import type { AppDeps } from '../deps';
import { toApiError } from '../http/errors';
import { dashboardAssets } from './assets';
import { inPeoplesWords } from './problem';
import type { DashboardApp } from './dashboard-app';
import { csrfProtection } from './csrf';
import { apiKeyPages } from './pages/api-keys';
import { eventTypePages } from './pages/event-types';
import { labelPages } from './pages/labels';
import { memberPages } from './pages/members';
import { overviewPage } from './pages/overview';
import { projectPages } from './pages/projects';
import { sessionPages } from './pages/session';
import { taskLinkPages } from './pages/task-links';
import { taskPages } from './pages/tasks';
import { webhookPages } from './pages/webhooks';
import { renderBarePage, renderPage } from './views/render';

/** Pages are private (the security headers every answer carries are set by the app: http/security-headers.ts). */
const privatePages: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * `/dashboard`: server-rendered pages for the people of an organization (docs/decisions.md#dashboard). Every
 * read and change goes through the API's own operations (callOperation) as the session's tenant.
 * app.ts loads this module on the dashboard's first request (a `require`, which knip does not follow).
 * @public
 */
export function dashboardRouter(deps: AppDeps): Router {
  const secure = new URL(deps.config.publicBaseUrl).protocol === 'https:';
  const { router: assetRouter, urls: assets } = dashboardAssets();
  const csrf = csrfProtection(secure);
  const app: DashboardApp = { deps, assets };

  const router = Router();
  router.use(assetRouter);
  router.use(privatePages);
  router.use(cookieParser());
  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 }));
  sessionPages(router, app, { secure, csrf });
  router.use(csrf.doubleCsrfProtection);
  overviewPage(router, app);
  apiKeyPages(router, app);
  webhookPages(router, app);
  eventTypePages(router, app);
  memberPages(router, app);
  projectPages(router, app);
  taskPages(router, app);
  taskLinkPages(router, app);
  labelPages(router, app);
  router.use((req, res) => {
    renderPage(req, res, assets, {
      title: 'Not found',
      section: null,
      status: 404,
      body: (
        <p>
          There is no such page. <a href="/dashboard">Back to the overview</a>
        </p>
      ),
    });
  });
  router.use(dashboardErrors(app, csrf.invalidCsrfTokenError));
  return router;
}

/** Errors become pages: what went wrong in words, the status the API would have given, never a stack. */
function dashboardErrors({ deps, assets }: DashboardApp, csrfError: Error): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    let status: number;
    let message: string;
    let title: string | undefined;
    if (err === csrfError) {
      status = 403;
      title = 'This form has expired';
      message = 'This form has expired or did not come from this dashboard. Go back, reload the page and try again.';
    } else {
      const apiError = toApiError(err);
      if (!apiError) deps.logger.error({ err, requestId: req.requestId, path: req.path }, 'dashboard error');
      status = apiError?.status ?? 500;
      message =
        apiError && status < 500
          ? inPeoplesWords(apiError.message, status)
          : status === 503
            ? 'A backing service is unavailable; try again shortly.'
            : `Something went wrong (request ${req.requestId}).`;
    }
    title ??= status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something went wrong';
    const body = (
      <p>
        {message} <a href="/dashboard">Back to the overview</a>
      </p>
    );
    if (req.dashboard) renderPage(req, res, assets, { title, section: null, status, body });
    else renderBarePage(res, assets, { title, status, body });
  };
}
