import { chromium, type Browser } from 'playwright-core';
import { chromiumPath } from '../sequencer';

/**
 * Debian's Chromium (or `CHROMIUM_PATH`'s), headless, with nothing that phones home (the machines
 * have no internet). A run without it stops before it starts (test/sequencer.ts).
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
