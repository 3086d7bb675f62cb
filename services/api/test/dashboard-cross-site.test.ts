import http from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '@test-support/browser';
import { freePort } from '@test-support/processes';
import { createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { linkFor } from '@test-support/dashboard-session';
import { waitFor } from '@test-support/wait-for';

/*
 * What a page on another site can make a visitor's browser do to the dashboard (docs/decisions.md#signing-in-safely),
 * in headless Chromium, which decides what cookies and headers go with each request. The dashboard is at
 * 127.0.0.1 and the other site at localhost: another site for SameSite, not merely another port.
 */

let h: Harness;
let server: http.Server;
let other: http.Server;
let base: string;
let elsewhere: string;
let browser: Browser;
/** The other site's pages, by path. */
const otherPages = new Map<string, string>();

beforeAll(async () => {
  const [port, otherPort] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  elsewhere = `http://localhost:${otherPort}`;
  h = createHarness({ PUBLIC_BASE_URL: base });
  server = http.createServer(h.app).listen(port, '127.0.0.1');
  other = http
    .createServer((req, res) => {
      res.writeHead(otherPages.has(req.url!) ? 200 : 404, { 'Content-Type': 'text/html' });
      res.end(otherPages.get(req.url!) ?? '');
    })
    .listen(otherPort, '127.0.0.1');
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const s of [server, other]) {
    s?.closeAllConnections();
    await new Promise((resolve) => s?.close(resolve));
  }
  await h?.close();
});

// A browser's start and its pages on a machine shared with other test runs.
jest.setTimeout(60_000);

const member = (org: TestOrg) => ({ organizationId: org.organization.id, userId: org.user.id });

/** A page of the other site that submits a form to the dashboard as soon as it loads. */
function autoPost(path: string, action: string, fields: Record<string, string> = {}): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
    .join('');
  otherPages.set(path, `<!doctype html><form method="post" action="${base}${action}">${inputs}</form><script>document.forms[0].submit()</script>`);
  return `${elsewhere}${path}`;
}

const sessionCookie = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === 'wt_session');

/** Where the page ends up once a navigation the other site started has been answered. */
async function settledAt(page: Page, pathname: string): Promise<void> {
  await waitFor(() => Promise.resolve(new URL(page.url()).pathname === pathname ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
  await page.waitForLoadState();
}

async function visitor(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

describe('a page on another site', () => {
  it('that navigates to a sign-in link signs no one in and spends nothing; posting the button from there is refused', async () => {
    // The attacker's own link, to their own organization: login CSRF would put the visitor in it.
    const attacker = await createOrg(h.db);
    const link = await linkFor(h, member(attacker));
    otherPages.set('/navigate', `<!doctype html><script>location.href = ${JSON.stringify(link.url)}</script>`);
    const { context, page } = await visitor();

    await page.goto(`${elsewhere}/navigate`);
    await settledAt(page, '/dashboard/sign-in/link');
    expect(await sessionCookie(context)).toBeUndefined();
    expect(page.url()).toBe(`${base}/dashboard/sign-in/link`);

    // The same other site then submits the page's button for the visitor.
    await page.goto(autoPost('/press', '/dashboard/sign-in/link'));
    await settledAt(page, '/dashboard/sign-in/link');
    await expect(page.locator('main').textContent()).resolves.toContain('did not come from this dashboard');
    expect(await sessionCookie(context)).toBeUndefined();
    await page.goto(`${base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    expect(await h.db.dashboardLink.count({ where: { organizationId: attacker.organization.id, usedAt: { not: null } } })).toBe(0);
    await context.close();
  });

  it('that posts a form to the dashboard signs no one out, and changes nothing', async () => {
    const org = await createOrg(h.db);
    const { context, page } = await visitor();
    await page.goto((await linkFor(h, member(org))).url);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    const session = await sessionCookie(context);
    expect(session).toBeDefined();

    for (const [path, action, fields] of [
      ['/sign-out', '/dashboard/sign-out', {}],
      ['/switch', '/dashboard/mode', { mode: 'test', next: '/dashboard' }],
    ] as const) {
      await page.goto(autoPost(path, action, fields));
      await settledAt(page, action);
      expect(await sessionCookie(context)).toEqual(session);
    }
    await page.goto(`${base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    await expect(page.getByRole('note').count()).resolves.toBe(0);
    expect((await h.db.dashboardSession.findFirstOrThrow({ where: { userId: org.user.id } })).mode).toBe('live');
    await context.close();
  });

  it('cannot frame the dashboard or the API reference', async () => {
    const { context, page } = await visitor();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors 'none'/.test(message.text())) refused.push(message.text());
    });
    otherPages.set('/frames', `<!doctype html><iframe src="${base}/dashboard/sign-in"></iframe><iframe src="${base}/docs"></iframe>`);
    await page.goto(`${elsewhere}/frames`);
    // One refusal per frame (Chromium names the framed origin alone).
    await waitFor(() => Promise.resolve(refused.length === 2 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    expect(refused.every((text) => text.includes(base))).toBe(true);
    await context.close();
  });
});
