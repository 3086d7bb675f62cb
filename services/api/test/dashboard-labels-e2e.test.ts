import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '@test-support/browser';
import { freePort } from '@test-support/processes';
import { as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { linkFor } from '@test-support/dashboard-session';
import { ARTIFACTS, checkPage as checkAnyPage, watchConsole } from '@test-support/page-checks';

/*
 * Labels, sub-tasks and relations in the dashboard, in headless Chromium against the app on a real
 * port: the labels page, label chips and the label filter on the task list, and a task's page with
 * its labels, parent, sub-tasks and relations. Every page visited passes checkPage (axe-core, 390 px,
 * no console error); screenshots in test-artifacts/dashboard/.
 */

let h: Harness;
let server: http.Server;
let base: string;
let browser: Browser;
let page: Page;
let consoleErrors: string[];
let org: TestOrg;
let projectId: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  h = createHarness({ PUBLIC_BASE_URL: base });
  server = http.createServer(h.app).listen(port, '127.0.0.1');
  browser = await launchBrowser();
  org = await createOrg(h.db);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Launch' })).body.id;
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.on('dialog', (dialog) => void dialog.accept());
  consoleErrors = watchConsole(page);
  mkdirSync(ARTIFACTS, { recursive: true });
  // A sign-in link opens a page whose button signs in (docs/decisions.md#signing-in-safely).
  await page.goto((await linkFor(h, { organizationId: org.organization.id, userId: org.user.id })).url);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard');
}, 90_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

const checkPage = (shot?: string) => checkAnyPage(page, consoleErrors, shot === undefined ? {} : { shot });
const notice = () => page.locator('[role=status]').first().textContent();

it('creates labels on the labels page and shows them as chips on the task list, filtered by label', async () => {
  await page.goto(`${base}/dashboard/labels`);
  for (const [name, color] of [
    ['bug', '#d73a4a'],
    ['design', '#0e8a16'],
  ]) {
    await page.getByLabel('Name').fill(name!);
    await page.getByLabel('Color (optional)').fill(color!);
    await page.getByRole('button', { name: 'Create label' }).click();
    await expect(notice()).resolves.toContain('The label was created.');
  }
  await page.getByLabel('Name').fill('BUG');
  await page.getByRole('button', { name: 'Create label' }).click();
  await expect(page.locator('.problem, .error').first().textContent()).resolves.toContain('already exists');
  await page.goto(`${base}/dashboard/labels`);
  await checkPage('labels');

  // A task labelled from the create form, another not.
  await page.goto(`${base}/dashboard/tasks`);
  await page.getByLabel('Title').fill('Fix the sign-in');
  await page.locator('#f-projectId').selectOption(projectId);
  await page.getByRole('checkbox', { name: 'bug' }).check();
  await page.getByRole('button', { name: 'Create task' }).click();
  await expect(notice()).resolves.toContain('The task was created.');
  await as(h.app, org.liveKey).post('/v1/tasks', { projectId, title: 'Write the announcement' });

  await page.goto(`${base}/dashboard/tasks`);
  await expect(page.locator('tbody .chip').allTextContents()).resolves.toEqual(['bug']);
  await page.locator('#filter-label').selectOption({ label: 'bug' });
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.locator('tbody th a').allTextContents()).resolves.toEqual(['Fix the sign-in']);
  await checkPage('tasks-by-label');
}, 90_000);

it("shows a task's labels, parent, sub-tasks and relations, and changes them from its page", async () => {
  const api = as(h.app, org.liveKey);
  const epic = (await api.post('/v1/tasks', { projectId, title: 'Release 2.0' })).body.id;
  const blocker = (await api.post('/v1/tasks', { projectId, title: 'Migrate the database' })).body.id;
  await page.goto(`${base}/dashboard/tasks/${epic}`);

  await page.getByLabel('New sub-task').fill('Write the changelog');
  await page.getByRole('button', { name: 'Add sub-task' }).click();
  await expect(notice()).resolves.toContain('The sub-task was created.');
  await expect(page.locator('#subtasks-title').textContent()).resolves.toContain('0 of 1 done');

  await page.locator('#relation-type').selectOption('blocks');
  await page.locator('#relation-task').selectOption({ label: 'Migrate the database' });
  await page.getByRole('button', { name: 'Relate' }).click();
  await expect(notice()).resolves.toContain('The tasks are related.');
  await expect(page.locator('.links-list').last().textContent()).resolves.toContain('Blocks');

  // Labelled, and put under another task, from the edit form.
  await page.getByRole('checkbox', { name: 'design' }).check();
  await page.getByLabel('Parent task').selectOption({ label: 'Fix the sign-in' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(notice()).resolves.toContain('The task was saved.');
  await expect(page.locator('.facts .chip').allTextContents()).resolves.toEqual(['design']);
  await expect(page.getByText('Sub-task of').textContent()).resolves.toContain('Fix the sign-in');
  await checkPage('task-links');

  // The other side reads the relation the other way round, and removes it.
  await page.goto(`${base}/dashboard/tasks/${blocker}`);
  await expect(page.locator('.links-list').last().textContent()).resolves.toContain('Blocked by');
  await page.getByRole('button', { name: /^Remove: blocked by/ }).click();
  await expect(notice()).resolves.toContain('The relation was removed.');
  await expect(page.getByText('No relations.').count()).resolves.toBe(1);
  await checkPage();
}, 90_000);
