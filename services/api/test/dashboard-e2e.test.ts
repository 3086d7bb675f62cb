import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestWorker } from '../../worker/test/support/worker-harness';
import { launchBrowser } from '../../../test/support/browser';
import { exitCode, freePort, repoRoot, runEntry } from '../../../test/support/processes';
import { bootstrapOrganization } from '../src/modules/organizations/bootstrap-organization';
import { as, createHarness, waitFor, type Harness, type TestOrg } from './support/harness';
import { startScriptedReceiver, type ScriptedReceiver } from './support/scripted-receiver';

/*
 * The dashboard in headless Chromium, as a person uses it, against the app on a real port, the
 * shipped worker in-process (retries 20 ms apart) and a local webhook receiver. One browser and one
 * page for the file; each test goes on from where the last one left the organization.
 */

const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'dashboard');
const SCRIPT_BUDGET_BYTES = 200 * 1024;
const INTERACTIVE_BUDGET_MS = 1_000;

let h: Harness;
let server: http.Server;
let base: string;
let worker: { close(): Promise<void> };
let receiver: ScriptedReceiver;
let browser: Browser;
let page: Page;
let org: TestOrg;

const healthy = { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"received":true}' };
const broken = { status: 503, headers: { 'Content-Type': 'text/plain' }, body: 'down for maintenance' };

beforeAll(async () => {
  const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  h = createHarness({ REDIS_PREFIX: prefix, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', PUBLIC_BASE_URL: base });
  server = http.createServer(h.app).listen(port, '127.0.0.1');
  worker = startTestWorker({ prefix });
  // One after the other, each kept as soon as it exists: should one fail to start (no Chromium),
  // afterAll still closes the others, and Jest can exit.
  receiver = await startScriptedReceiver(healthy);
  browser = await launchBrowser();
  org = await bootstrapOrganization(h.deps.unscoped, { name: 'Acme', email: 'ada@acme.example', plan: 'pro', dailyQuota: null });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('dialog', (dialog) => void dialog.accept());
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await receiver?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

const screenshot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

/** What every page must be: interactive within a second, light on script, every control labelled. */
async function checkPage(): Promise<void> {
  const facts = await page.evaluate(() => {
    const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
    const scripts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((r) => r.initiatorType === 'script');
    const controls = Array.from(
      document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input:not([type=hidden]), select, textarea'),
    );
    const external = Array.from(document.querySelectorAll<HTMLElement>('[src], [href]'))
      .map((el) => el.getAttribute('src') ?? el.getAttribute('href') ?? '')
      .filter((url) => /^(https?:)?\/\//.test(url));
    return {
      interactiveMs: navigation!.domInteractive,
      scriptBytes: scripts.reduce((sum, r) => sum + r.decodedBodySize, 0),
      unlabelled: controls.filter((c) => c.labels?.length === 0 && !c.getAttribute('aria-label')).map((c) => c.outerHTML),
      external,
    };
  });
  expect(facts.interactiveMs).toBeLessThan(INTERACTIVE_BUDGET_MS);
  expect(facts.scriptBytes).toBeLessThanOrEqual(SCRIPT_BUDGET_BYTES);
  expect(facts.unlabelled).toEqual([]);
  expect(facts.external).toEqual([]);
}

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

describe('the dashboard in a browser', () => {
  it('signs in with a link printed by the CLI, once, and shows the overview', async () => {
    const child = runEntry('services/api/src/cli.ts', ['dashboard-link', '--email', org.user.email], {
      DATABASE_URL: process.env.DATABASE_URL,
      PUBLIC_BASE_URL: base,
    });
    expect(await exitCode(child)).toBe(0);
    const link = /http:\/\/\S+/.exec(child.output())![0];

    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    await checkPage();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Overview');
    await expect(main().textContent()).resolves.toContain('API requests today');

    // Keyboard: the first Tab reaches the skip link, which takes the focus to the page's content.
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');

    const stranger = await browser.newPage();
    await stranger.goto(link);
    await expect(stranger.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This sign-in link does not work');
    await stranger.close();
  });

  it('creates an API key and shows it once', async () => {
    await go('/dashboard/keys');
    await page.getByLabel('Name', { exact: true }).fill('Deploy bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    expect(key).toMatch(/^tk_live_/);
    await checkPage();
    await screenshot('api-keys');
    expect((await as(h.app, key).get('/v1/tasks')).status).toBe(200);

    await go('/dashboard/keys');
    await expect(main().textContent()).resolves.toContain('Deploy bot');
    await expect(page.content()).resolves.not.toContain(key);
  });

  let webhookPath: string;

  it('creates a webhook to a local receiver, sends a test, and shows the attempt with the receiver’s answer', async () => {
    await go('/dashboard/webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('Local receiver');
    await page.getByLabel('Requests at once').fill('5');
    await page.getByLabel('Requests per second (optional)').fill('1000');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await expect(page.locator('#new-secret').textContent()).resolves.toMatch(/^whsec_/);
    await checkPage();
    await screenshot('webhooks');

    await page.getByRole('link', { name: 'Open it' }).click();
    webhookPath = new URL(page.url()).pathname;
    await checkPage();
    await expect(main().textContent()).resolves.toContain('5 requests at once, at most 1000 per second');
    await page.getByRole('button', { name: 'Send test' }).click();
    expect(new URL(page.url()).pathname).toMatch(/\/deliveries\/dlv_\w+$/);
    // The page refreshes its attempts itself while the delivery is pending.
    await page.getByText('Attempt 1: HTTP 200').waitFor({ timeout: 15_000 });
    await expect(page.locator('.response-body').textContent()).resolves.toBe('{"received":true}');
    await expect(main().textContent()).resolves.toContain('content-type: application/json');
    await checkPage();
    await screenshot('delivery');
    expect(receiver.received.at(-1)?.event).toBe('task.created');
  });

  it('breaks the receiver until the subscription is disabled, mends it, re-enables, recovers, and the missed event arrives', async () => {
    receiver.answer = broken;
    const failing = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Sent while broken' });
    await go(webhookPath);
    await reloadUntil('its last retry failed');
    await screenshot('webhook-disabled');

    const missed = await as(h.app, org.liveKey).post('/v1/projects', { name: 'Made while disabled' });
    await waitFor(async () =>
      (await h.db.outboxEvent.findFirst({ where: { dispatchedAt: { not: null }, data: { path: ['id'], equals: missed.body.id } } })) ? true : undefined,
    );

    receiver.answer = healthy;
    await page.getByRole('button', { name: 'Re-enable' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toContain('active again');
    await page.getByRole('button', { name: 'Recover' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toContain('Recovery started');

    const arrived = await waitFor(() => {
      const ids = receiver.received.map((d) => (JSON.parse(d.body) as { data: { id?: string } }).data.id);
      return Promise.resolve(ids.includes(missed.body.id) && ids.includes(failing.body.id) ? true : undefined);
    });
    expect(arrived).toBe(true);
    const webhookId = webhookPath.split('/').at(-1)!;
    await waitFor(async () => ((await h.db.delivery.count({ where: { webhookId, status: { not: 'succeeded' } } })) === 0 ? true : undefined));
    await page.reload();
    await checkPage();
    await expect(page.locator('#log-title + form + table .badge-failed').count()).resolves.toBe(0);
    await screenshot('webhook');
  });

  it('invites a member, then revokes the invitation', async () => {
    await go('/dashboard/members');
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expect(page.locator('#invitation-token').textContent()).resolves.toMatch(/^invtok_/);
    await checkPage();
    await screenshot('members');

    await page.getByRole('button', { name: 'Revoke the invitation of grace@example.com' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toContain('invitation was revoked');
    await expect(main().textContent()).resolves.not.toContain('grace@example.com');
    expect((await h.db.invitation.findFirstOrThrow({ where: { email: 'grace@example.com' } })).status).toBe('revoked');
  });

  it('creates a project and a task, then edits the task', async () => {
    await go('/dashboard/projects');
    await page.getByLabel('Name', { exact: true }).fill('Website');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Website');
    await screenshot('project');

    await page.getByRole('link', { name: 'Its tasks' }).click();
    await checkPage();
    await page.getByLabel('Title').fill('Write the launch post');
    await page.getByLabel('Priority', { exact: true }).last().selectOption('high');
    await page.getByRole('button', { name: 'Create task' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Write the launch post');

    await page.getByLabel('Title').fill('Write and publish the launch post');
    await page.getByLabel('Status', { exact: true }).last().selectOption('done');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toContain('task was saved');
    await checkPage();
    await screenshot('task');
    const taskId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${taskId}`)).body).toMatchObject({
      title: 'Write and publish the launch post',
      status: 'done',
      priority: 'high',
    });

    await go('/dashboard/tasks?status=done');
    await expect(main().textContent()).resolves.toContain('Write and publish the launch post');
    await screenshot('tasks');
  });

  it('shows the last day on the overview, and switches to test mode, where live data is not shown', async () => {
    await go('/dashboard');
    await expect(main().textContent()).resolves.toContain('Webhook deliveries, last 24 hours');
    await expect(page.locator('svg[role=img] title').first().textContent()).resolves.toBe('Delivery attempts per hour, last 24 hours');
    await screenshot('overview');

    await page.getByRole('button', { name: 'Switch to test' }).click();
    await expect(page.getByRole('note').textContent()).resolves.toContain('Test mode');
    await go('/dashboard/projects');
    await expect(main().textContent()).resolves.not.toContain('Website');
    await screenshot('test-mode');
    await page.getByRole('button', { name: 'Switch to live' }).click();
  });
});
