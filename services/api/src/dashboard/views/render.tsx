import type { Request, Response } from 'express';
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { AssetUrls } from '../assets';
import { requireDashboard } from '../context';
import { noticeOf } from '../notices';
import { Layout, type Section } from './layout';
import { PageContext } from './page-context';

export interface PageSpec {
  title: string;
  /** Highlighted in the navigation; null for pages of none (errors). */
  section: Section | null;
  status?: number;
  body: ComponentChildren;
}

function send(res: Response, status: number, page: VNode): void {
  res
    .status(status)
    .type('html')
    .send(`<!doctype html>${renderToString(page)}`);
}

/** A signed-in page: the layout around the body, with the session's context for its components. */
export function renderPage(req: Request, res: Response, assets: AssetUrls, { title, section, status = 200, body }: PageSpec): void {
  const { session, tenant, csrfToken, flash, disabledWebhooks } = requireDashboard(req);
  send(
    res,
    status,
    <PageContext.Provider value={{ session, permissions: tenant.permissions, csrfToken, assets, flash }}>
      <Layout title={title} section={section} notice={noticeOf(req)} disabledWebhooks={disabledWebhooks}>
        {body}
      </Layout>
    </PageContext.Provider>,
  );
}

/** A page outside a session: signing in, and errors before one exists. */
export function renderBarePage(res: Response, assets: AssetUrls, { title, status, body }: { title: string; status: number; body: ComponentChildren }): void {
  send(
    res,
    status,
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · worktrack`}</title>
        <link rel="icon" href={assets.icon} type="image/svg+xml" />
        <link rel="stylesheet" href={assets.css} />
      </head>
      <body>
        <main id="main" class="bare">
          <p class="brand">
            <strong>worktrack</strong>
          </p>
          <h1>{title}</h1>
          {body}
        </main>
      </body>
    </html>,
  );
}
