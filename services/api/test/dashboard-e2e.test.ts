import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { Browser, Frame, Page } from 'playwright-core';
import request from 'supertest';
import { startTestWorker } from '@test-support/worker-harness';
import { launchBrowser } from '@test-support/browser';
import { exitCode, freePort, runEntry } from '@test-support/processes';
import { bootstrapOrganization } from '../src/modules/organizations/bootstrap-organization';
import { addMember, as, createHarness, type Harness, type TestOrg } from '@test-support/api-harness';
import { EVENT_TYPES } from '@worktrack/events';
import { linkFor } from '@test-support/dashboard-session';
import { waitFor } from '@test-support/wait-for';
import { ARTIFACTS, checkPage as checkAnyPage, watchConsole } from '@test-support/page-checks';
import { startReceiver, type Receiver } from '@test-support/receiver';
import { startSmtpInbox, type SmtpInbox } from '@test-support/smtp-inbox';

/*
 * The dashboard in headless Chromium, as a person uses it, against the app on a real port, the
 * shipped worker in-process (retries 20 ms apart), a local webhook receiver and a real SMTP server
 * whose mails' links the tests follow. One browser for the file, one page for the admin (others in
 * contexts of their own for the people they invite); each test goes on from where the last one
 * left the organization. Every page visited passes checkPage: axe-core, 390 px, no console error.
 */

let h: Harness;
let server: http.Server;
let base: string;
let worker: { close(): Promise<void> };
let receiver: Receiver;
let inbox: SmtpInbox;
let browser: Browser;
let page: Page;
let consoleErrors: string[];
let org: TestOrg;

const healthy = { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"received":true}' };
const broken = { status: 503, headers: { 'Content-Type': 'text/plain' }, body: 'down for maintenance' };

beforeAll(async () => {
  const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  inbox = await startSmtpInbox();
  const mail = { SMTP_URL: inbox.url, PUBLIC_BASE_URL: base };
  h = createHarness({ REDIS_PREFIX: prefix, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', ...mail });
  server = http.createServer(h.app).listen(port, '127.0.0.1');
  worker = startTestWorker({ prefix, env: mail });
  // One after the other, each kept as soon as it exists: should one fail to start (no Chromium),
  // afterAll still closes the others, and Jest can exit.
  receiver = await startReceiver(healthy);
  browser = await launchBrowser();
  org = await bootstrapOrganization(h.deps.unscoped, { name: 'Acme', email: 'ada@acme.example', plan: 'pro', dailyQuota: null });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('dialog', (dialog) => void dialog.accept());
  consoleErrors = watchConsole(page);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await receiver?.close();
  await inbox?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

/** The page's checks; with a name, also its screenshots, desktop and phone (test-artifacts/dashboard/). */
const checkPage = (shot?: string) => checkAnyPage(page, consoleErrors, shot === undefined ? {} : { shot });

async function go(pathname: string): Promise<void> {
  await page.goto(`${base}${pathname}`);
  await checkPage();
}

/** Reloads until the text shows up; bounded. */
async function reloadUntil(text: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    async () => {
      await page.reload();
      return (await page.getByText(text, { exact: false }).count()) > 0 ? true : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

const main = () => page.locator('main');

/** Another person's browser: a context of its own (cookies apart), its console watched, the same checks. */
async function personPage(): Promise<{ page: Page; check: (shot?: string) => Promise<void>; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const other = await context.newPage();
  const errors = watchConsole(other);
  return { page: other, check: (shot) => checkAnyPage(other, errors, shot === undefined ? {} : { shot }), close: () => context.close() };
}

// Each check runs axe-core and a phone-width pass: the longer flows need minutes on a machine shared with other test runs.
jest.setTimeout(180_000);

const h1 = (on: Page = page) => on.getByRole('heading', { level: 1 }).textContent();

/** Opens a sign-in link, whose page's one button signs in (docs/decisions.md#signing-in-safely), and presses it. */
async function signInWith(link: string, on: Page = page): Promise<void> {
  await on.goto(link);
  expect(new URL(on.url()).search).toBe('');
  await expect(h1(on)).resolves.toBe('Sign in to Acme');
  await on.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('the dashboard in a browser', () => {
  it('signs in by email: the link arrives by mail and opens the overview; a stranger gets the same answer and no mail', async () => {
    await go('/dashboard/sign-in');
    await expect(main().textContent()).resolves.not.toContain('<base URL>');
    await expect(main().textContent()).resolves.toContain(`${base}/v1/dashboard-links`);
    await checkPage('sign-in');

    const stranger = await personPage();
    await stranger.page.goto(`${base}/dashboard/sign-in`);
    await stranger.page.getByLabel('Your work email').fill('nobody@example.com');
    await stranger.page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    const strangerAnswer = await stranger.page.locator('main').innerHTML();
    await stranger.close();

    const before = inbox.received.length;
    await page.getByLabel('Your work email').fill(org.user.email.toUpperCase());
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await expect(h1()).resolves.toBe('Check your email');
    expect(await main().innerHTML()).toBe(strangerAnswer);
    await checkPage('sign-in-sent');

    const mail = await inbox.mailTo(org.user.email, /sign-in link/, before);
    expect(mail.html).toContain('Sign in to Acme');
    expect(inbox.received.slice(before).some((m) => m.to.includes('nobody@example.com'))).toBe(false);
    await page.goto(inbox.linkIn(mail, `${base}/dashboard/sign-in?token=`));
    await expect(h1()).resolves.toBe('Sign in to Acme');
    await checkPage('sign-in-link');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    await checkPage();
    await expect(h1()).resolves.toBe('Overview');
  });

  it('signs in with a link printed by the CLI, once, and shows the overview', async () => {
    const child = runEntry('services/api/src/cli.ts', ['dashboard-link', '--email', org.user.email], {
      DATABASE_URL: process.env.DATABASE_URL,
      PUBLIC_BASE_URL: base,
    });
    // A TypeScript start of the CLI: up to a minute when the machine is shared with other test runs.
    expect(await exitCode(child, 60_000)).toBe(0);
    const link = /http:\/\/\S+/.exec(child.output())![0];

    await signInWith(link);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    await checkPage();
    await expect(h1()).resolves.toBe('Overview');
    await expect(main().textContent()).resolves.toContain('API requests today');

    // Keyboard: the first Tab reaches the skip link, which takes the focus to the page's content.
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');

    const stranger = await personPage();
    await stranger.page.goto(link);
    await expect(h1(stranger.page)).resolves.toBe('This sign-in link does not work');
    await stranger.check();
    await stranger.close();
  });

  it('creates an API key and shows it once: a refresh or going back creates nothing and shows it no more', async () => {
    await go('/dashboard/keys');
    await page.getByLabel('Name', { exact: true }).fill('Deploy bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#shown-once').textContent())!;
    expect(key).toMatch(/^tk_live_/);
    await checkPage('api-keys');
    expect((await as(h.app, key).get('/v1/tasks')).status).toBe(200);
    const keys = () => h.db.apiKey.count({ where: { organizationId: org.organization.id, name: 'Deploy bot' } });
    expect(await keys()).toBe(1);

    await page.reload();
    await checkPage();
    await expect(page.locator('#shown-once').count()).resolves.toBe(0);
    await expect(page.content()).resolves.not.toContain(key);
    await page.goBack();
    await page.goForward();
    await expect(page.content()).resolves.not.toContain(key);
    expect(await keys()).toBe(1);
    await expect(main().textContent()).resolves.toContain('Deploy bot');
  });

  let webhookPath: string;

  it('creates a webhook to a local receiver, sends a test, and shows the attempt with the receiver’s answer', async () => {
    await go('/dashboard/webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('Local receiver');
    await page.getByLabel('Requests at once').fill('5');
    await page.getByLabel('Requests per second (optional)').fill('1000');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const secret = (await page.locator('#shown-once').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    webhookPath = new URL(page.url()).pathname;
    expect(webhookPath).toMatch(/^\/dashboard\/webhooks\/whk_\w+$/);
    await checkPage();
    await expect(main().textContent()).resolves.toContain('5 requests at once, at most 1000 per second');
    // No attempt yet: no empty chart.
    await expect(page.locator('.chart').count()).resolves.toBe(0);
    await page.reload();
    await expect(page.content()).resolves.not.toContain(secret);

    // An admin reveals the current secret again, once per asking.
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    await expect(page.locator('#shown-once').textContent()).resolves.toBe(secret);
    await page.reload();
    await expect(page.content()).resolves.not.toContain(secret);

    // The receiver holds its answer until the page has shown the delivery pending.
    let answer = () => {};
    receiver.replyWith({ ...healthy, until: new Promise<void>((resolve) => (answer = resolve)) });
    await page.getByRole('button', { name: 'Send test' }).click();
    expect(new URL(page.url()).pathname).toMatch(/\/deliveries\/dlv_\w+$/);
    await expect(page.locator('#delivery-state').textContent()).resolves.toContain('No attempt yet');
    // The page refreshes its attempts itself while the delivery is pending: no reload, no navigation.
    const navigations: string[] = [];
    const navigated = (frame: Frame) => frame === page.mainFrame() && navigations.push(frame.url());
    page.on('framenavigated', navigated);
    answer();
    receiver.replyWith(healthy);
    await page.getByText('Attempt 1: HTTP 200').waitFor({ timeout: 15_000 });
    page.off('framenavigated', navigated);
    expect(navigations).toEqual([]);
    await expect(page.locator('#delivery-state').getAttribute('data-refresh')).resolves.toBeNull();
    await expect(page.locator('.response-body').textContent()).resolves.toBe('{"received":true}');
    await expect(main().textContent()).resolves.toContain('content-type: application/json');
    // With the headers it sent, which the receiver got: the signatures, never the secret.
    const arrived = receiver.received.at(-1)!;
    const sentHeaders = (await page.locator('.request-headers').textContent())!;
    expect(sentHeaders).toContain(`webhook-signature: ${arrived.headers['webhook-signature']}`);
    expect(sentHeaders).toContain(`X-Service-Signature: ${arrived.headers['x-service-signature']}`);
    expect(await page.content()).not.toContain(secret);
    await checkPage('delivery');
    expect(arrived.json.event).toBe('task.created');
  });

  it('shows the delivery log first, with HTTP status and time, and finds a delivery by the resource it was about', async () => {
    const project = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Searched for' });
    await go(webhookPath);
    await reloadUntil('project.created');
    const log = page.locator('.delivery-log');
    // The status first, then the log, then the actions: one group of cards of one size.
    const FOLLOWING = 4; // Node.DOCUMENT_POSITION_FOLLOWING
    const follows = (first: string, second: string) =>
      page.evaluate(([a, b]) => document.querySelector(a!)!.compareDocumentPosition(document.querySelector(b!)!), [first, second]);
    await expect(follows('.webhook-status', '.delivery-log')).resolves.toBe(FOLLOWING);
    await expect(follows('.delivery-log', '.actions')).resolves.toBe(FOLLOWING);
    const cards = await page.locator('.action-card').evaluateAll((all) => all.map((card) => `${card.clientWidth}x${card.clientHeight}`));
    expect(cards).toHaveLength(6);
    expect(new Set(cards).size).toBe(1);
    await expect(log.locator('thead').textContent()).resolves.toMatch(/HTTP.*Time/);
    await waitFor(
      async () => {
        await page.reload();
        return (await log.locator('.http-ok').count()) >= 2 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await expect(log.locator('td.number').first().textContent()).resolves.toMatch(/^\d+ ms$/);

    await page.getByLabel('Search by id').fill(project.body.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(log.locator('tbody tr').count()).resolves.toBe(1);
    await expect(log.locator('tbody').textContent()).resolves.toContain('project.created');
    await checkPage('webhook-log');

    await page.getByLabel('Search by id').fill('not an id');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.locator('.filters .problem').textContent()).resolves.toContain('resourceId');
    await checkPage();
  });

  it('shows the event catalog with each type’s schema and example', async () => {
    await go('/dashboard/webhooks');
    await page.getByRole('link', { name: 'The event types' }).click();
    await expect(h1()).resolves.toBe('Event types');
    await expect(page.locator('section.event-type').count()).resolves.toBe(EVENT_TYPES.length);
    await page.locator('#task\\.created summary', { hasText: 'Example body' }).click();
    await expect(page.locator('#task\\.created pre').first().textContent()).resolves.toContain('"event": "task.created"');
    await checkPage('event-types');
  });

  it('breaks the receiver until the subscription is disabled: the admins are mailed, every page says so, and re-enabling recovers what was missed', async () => {
    receiver.replyWith(broken);
    const before = inbox.received.length;
    const failing = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Sent while broken' });
    await go(webhookPath);
    await reloadUntil('its last retry failed');
    await checkPage('webhook-disabled');

    const notice = await inbox.mailTo(org.user.email, /was disabled/, before);
    expect(notice.text).toContain('HTTP 503');
    expect(inbox.linkIn(notice, base)).toBe(`${base}${webhookPath}`);
    await go('/dashboard/projects');
    await expect(page.locator('.alert-banner').textContent()).resolves.toContain('Local receiver');

    const missed = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Made while disabled' });
    await waitFor(async () =>
      (await h.db.outboxEvent.findFirst({ where: { dispatchedAt: { not: null }, data: { path: ['id'], equals: missed.body.id } } })) ? true : undefined,
    );

    receiver.replyWith(healthy);
    await go(webhookPath);
    await expect(page.getByLabel(/Also recover what it missed/).isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toContain('recovery started');
    await expect(page.locator('.alert-banner').count()).resolves.toBe(0);

    const arrived = await waitFor(() => {
      const ids = receiver.received.map((d) => d.json.data.id);
      return Promise.resolve(ids.includes(missed.body.id) && ids.includes(failing.body.id) ? true : undefined);
    });
    expect(arrived).toBe(true);
    const webhookId = webhookPath.split('/').at(-1)!;
    await waitFor(async () => ((await h.db.delivery.count({ where: { webhookId, status: { not: 'succeeded' } } })) === 0 ? true : undefined), {
      timeoutMs: 60_000,
    });
    await page.reload();
    await expect(page.locator('.delivery-log .badge-failed').count()).resolves.toBe(0);
    await checkPage('webhook');
    // On a phone the page, log and chart included, stays short.
    await page.setViewportSize({ width: 390, height: 844 });
    const phoneHeight = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(phoneHeight).toBeLessThan(3_500);
  });

  it('invites by email: a second invitation revokes the first, the mailed link opens the accept page, and the invitee joins signed in', async () => {
    const invite = async (email: string, role = 'member') => {
      const before = inbox.received.length;
      await go('/dashboard/members');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Role', { exact: true }).selectOption(role);
      await page.getByRole('button', { name: 'Invite' }).click();
      await expect(page.locator('.notice').textContent()).resolves.toContain('invitation was mailed');
      return inbox.linkIn(await inbox.mailTo(email, /invited you to Acme/, before), `${base}/dashboard/invitations/accept?token=`);
    };
    const first = await invite('grace@example.com');
    const second = await invite('grace@example.com', 'admin');
    await expect(page.locator('#shown-once').textContent()).resolves.toBe(second);
    await checkPage('members');
    await page.reload();
    await expect(page.locator('#shown-once').count()).resolves.toBe(0);
    expect(await h.db.invitation.count({ where: { email: 'grace@example.com', status: 'pending' } })).toBe(1);

    const grace = await personPage();
    await grace.page.goto(first);
    await expect(h1(grace.page)).resolves.toBe('This invitation does not work');
    await grace.check();
    await grace.page.goto(second);
    await expect(h1(grace.page)).resolves.toBe('Join Acme');
    // The token left the address bar (and the history) at once, and the page does not hold it.
    expect(grace.page.url()).toBe(`${base}/dashboard/invitations/accept`);
    expect(await grace.page.content()).not.toContain(new URL(second).searchParams.get('token')!);
    await grace.check('accept-invitation');
    await grace.page.getByLabel('Your name').fill('Grace Hopper');
    await grace.page.getByRole('button', { name: 'Join Acme' }).click();
    expect(new URL(grace.page.url()).pathname).toBe('/dashboard');
    await expect(grace.page.locator('.who').textContent()).resolves.toContain('grace@example.com (admin)');
    await expect(grace.page.locator('.notice').textContent()).resolves.toContain('you joined');
    await grace.check();
    await grace.close();
  });

  it('removing a member revokes the invitations to and from them: their leftover token is refused', async () => {
    const grace = await personPage();
    // Grace, an admin now, signs in by email and invites Lin.
    const before = inbox.received.length;
    await grace.page.goto(`${base}/dashboard/sign-in`);
    await grace.page.getByLabel('Your work email').fill('grace@example.com');
    await grace.page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await signInWith(inbox.linkIn(await inbox.mailTo('grace@example.com', /sign-in link/, before), base), grace.page);
    await grace.page.goto(`${base}/dashboard/members`);
    await grace.page.getByLabel('Email').fill('lin@example.com');
    await grace.page.getByRole('button', { name: 'Invite' }).click();
    const fromGrace = inbox.linkIn(await inbox.mailTo('lin@example.com', /invited you/, before), `${base}/dashboard/invitations/accept?token=`);

    // A pending invitation to Grace's address left from before one address had at most one (the API no longer makes such a pair).
    const graceId = (await h.db.user.findUniqueOrThrow({ where: { email: 'grace@example.com' } })).id;
    const leftover = await as(h.app, org.liveKey).post('/v1/members/invite', { email: 'grace.h@example.com', role: 'member' });
    await h.db.invitation.update({ where: { id: leftover.body.id }, data: { email: 'grace@example.com' } });

    await go('/dashboard/members');
    await page.getByRole('button', { name: 'Remove grace@example.com' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toContain('member was removed');
    await checkPage();
    for (const link of [fromGrace, `${base}/dashboard/invitations/accept?token=${leftover.body.token}`]) {
      await grace.page.goto(link);
      await expect(h1(grace.page)).resolves.toBe('This invitation does not work');
    }
    const rejoin = await request(h.app).post('/v1/invitations/accept').send({ token: leftover.body.token, name: 'Grace again' });
    expect(rejoin.status).toBe(400);
    expect(await h.db.membership.count({ where: { organizationId: org.organization.id, userId: graceId } })).toBe(0);
    await grace.close();

    // The last admin cannot be removed: the refusal shows in the row, in people's words, after a redirect.
    await page.getByRole('button', { name: `Remove ${org.user.email}` }).click();
    await expect(page.locator('.row-problem').textContent()).resolves.toBe('An organization must keep at least one admin');
    await checkPage();
  });

  it('creates a project and a task, then edits the task', async () => {
    await go('/dashboard/projects');
    await page.getByLabel('Name', { exact: true }).fill('Website');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect(h1()).resolves.toBe('Website');
    await checkPage('project');

    await page.getByRole('link', { name: 'Its tasks' }).click();
    await checkPage();
    await page.getByLabel('Title').fill('Write the launch post');
    await page.getByLabel('Priority', { exact: true }).last().selectOption('high');
    await page.getByRole('button', { name: 'Create task' }).click();
    await expect(h1()).resolves.toBe('Write the launch post');

    await page.getByLabel('Title').fill('Write and publish the launch post');
    await page.getByLabel('Status', { exact: true }).last().selectOption('done');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toContain('task was saved');
    await checkPage('task');
    const taskId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${taskId}`)).body).toMatchObject({
      title: 'Write and publish the launch post',
      status: 'done',
      priority: 'high',
    });

    await go('/dashboard/tasks?status=done');
    await expect(main().textContent()).resolves.toContain('Write and publish the launch post');
    await checkPage('tasks');
  });

  it('shows the last day on the overview, and switches to test mode, where live data is not shown', async () => {
    await go('/dashboard');
    await expect(main().textContent()).resolves.toContain('Webhook deliveries, last 24 hours');
    await expect(page.locator('svg[role=img] title').first().textContent()).resolves.toBe('Delivery attempts per hour, last 24 hours');
    await checkPage('overview');

    await page.getByRole('button', { name: 'Switch to test' }).click();
    await expect(page.getByRole('note').textContent()).resolves.toContain('Test mode');
    await go('/dashboard/projects');
    await expect(main().textContent()).resolves.not.toContain('Website');
    await checkPage('test-mode');
    // No test project yet: the task form says so and where to make one, instead of an empty required list.
    await go('/dashboard/tasks');
    await expect(main().textContent()).resolves.toContain('There is no test project yet, and a task belongs to one.');
    await expect(page.getByRole('link', { name: 'Create a test project' }).getAttribute('href')).resolves.toBe('/dashboard/projects');
    await checkPage('test-mode-tasks');
    await page.getByRole('button', { name: 'Switch to live' }).click();
  });

  it('says what went wrong in a person’s words: no such page, a role that no longer allows the form, a form the browser forgot, an ended session', async () => {
    const { userId } = await addMember(h.db, org, { role: 'admin' });
    const person = await personPage();
    await signInWith((await linkFor(h, { organizationId: org.organization.id, userId })).url, person.page);

    await person.page.goto(`${base}/dashboard/no-such-page`);
    await expect(h1(person.page)).resolves.toBe('Not found');
    await person.check('not-found');

    // The subscription form, loaded while an admin, sent after being made a member.
    await person.page.goto(`${base}/dashboard/webhooks`);
    expect((await as(h.app, org.liveKey).patch(`/v1/members/${userId}`, { role: 'member' })).status).toBe(200);
    await person.page.getByLabel('Endpoint URL').fill(receiver.url);
    await person.page.getByRole('button', { name: 'Create subscription' }).click();
    await expect(h1(person.page)).resolves.toBe('Not allowed');
    await expect(person.page.locator('main').textContent()).resolves.toContain('Your role does not allow this');
    await person.check('not-allowed');

    // A browser restarted with its tabs keeps the session (12 hours) but not the CSRF cookie (this browsing session's).
    await person.page.context().clearCookies({ name: 'wt_csrf' });
    await person.page.getByRole('button', { name: 'Switch to test' }).click();
    await expect(person.page.locator('main').textContent()).resolves.toContain('This form has expired');
    await person.check('form-expired');

    expect((await as(h.app, org.liveKey).delete(`/v1/members/${userId}`)).status).toBe(204);
    await person.page.getByRole('button', { name: 'Sign out' }).click();
    await expect(h1(person.page)).resolves.toBe('Your session has ended');
    await person.check('session-ended');
    await person.close();
  });
});
