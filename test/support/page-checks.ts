import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot } from './processes';

export const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'dashboard');
const SCRIPT_BUDGET_BYTES = 200 * 1024;
/**
 * Not a speed target (those are benchmarks' figures): a bound that only a page hanging on something
 * fails, even on a machine shared with other test runs (interactive in 1-5 s at a load of 24 on 2 cores).
 */
const INTERACTIVE_BOUND_MS = 10_000;
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The console errors of a page, from now on: script errors and failed loads. A page's own status
 * (a 400 for a used invitation, a 401 for a used link) is what it should answer, not an error of it.
 */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (message.location().url === page.url() && /the server responded with a status of 4\d\d/.test(message.text())) return;
    errors.push(`${message.text()} (${message.location().url})`);
  });
  return errors;
}

/**
 * What every page must be: interactive (not hanging), light on script, every control labelled,
 * nothing from outside, no serious or critical axe-core violation, and at 390 px wide no sideways
 * scroll of the page (`scrollWidth` within the viewport), no word of a table cell cut across lines,
 * and a header of at most 110 px. `phoneShot` also saves it as a phone sees it.
 */
export async function checkPage(page: Page, consoleErrors: string[], { shot }: { shot?: string } = {}): Promise<void> {
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
  expect(facts.interactiveMs).toBeLessThan(INTERACTIVE_BOUND_MS);
  expect(facts.scriptBytes).toBeLessThanOrEqual(SCRIPT_BUDGET_BYTES);
  expect(facts.unlabelled).toEqual([]);
  expect(facts.external).toEqual([]);

  // Evaluated over DevTools, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations).toEqual([]);

  if (shot) await page.screenshot({ path: path.join(ARTIFACTS, `${shot}.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  const phone = await page.evaluate(() => {
    const viewport = window.innerWidth;
    // What sticks out, outside the boxes that scroll on their own: named, so a failure says where to look.
    const sticking = Array.from(document.querySelectorAll<HTMLElement>('body *'))
      .filter((el) => !el.closest('.table-scroll, pre, svg, header.top nav'))
      .filter((el) => el.getBoundingClientRect().right > viewport + 1 || (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible'))
      .slice(-3)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px, content ${el.scrollWidth} px)`);
    // Words cut across lines in a table cell: pieces between the places a line may break (spaces,
    // hyphens, slashes) that span two lines. Ids and URLs, which have no words, may wrap anywhere.
    const brokenWords: string[] = [];
    for (const cell of Array.from(document.querySelectorAll('table th, table td'))) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        if (node.parentElement?.closest('.id, .url, pre')) continue;
        for (const word of node.data.matchAll(/[^\s/-]+/g)) {
          const range = document.createRange();
          range.setStart(node, word.index);
          range.setEnd(node, word.index + word[0].length);
          if (new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size > 1) brokenWords.push(word[0]);
        }
      }
    }
    const headerHeight = Math.round(document.querySelector('header.top')?.getBoundingClientRect().height ?? 0);
    return { scrollWidth: document.documentElement.scrollWidth, viewport, sticking, brokenWords, compactHeader: headerHeight <= 110 || headerHeight };
  });
  if (shot) await page.screenshot({ path: path.join(ARTIFACTS, `${shot}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  expect({ ...phone, scrollWidth: Math.min(phone.scrollWidth, phone.viewport), brokenWords: [], compactHeader: true }).toEqual(phone);
  expect(consoleErrors).toEqual([]);
}
