import { accessSync, constants, readFileSync } from 'node:fs';
import TestSequencer, { type TestSequencerOptions } from '@jest/test-sequencer';

type Test = Parameters<TestSequencer['sort']>[0][number];

/** The Chromium the browser tests drive: Debian's, unless `CHROMIUM_PATH` names another. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** What to do when there is no Chromium to run, in one line; undefined when there is one. */
export function missingChromium(): string | undefined {
  const executable = chromiumPath();
  try {
    accessSync(executable, constants.X_OK);
    return undefined;
  } catch {
    const where = process.env.CHROMIUM_PATH ? `${executable} (CHROMIUM_PATH)` : executable;
    return `The browser tests need Chromium and there is none at ${where}: install Debian's with \`apt-get install -y chromium\` (as root), or set CHROMIUM_PATH to a Chromium executable.`;
  }
}

/** A test file that launches Chromium, through test/support/browser.ts. */
const drivesChromium = (test: Test): boolean => readFileSync(test.path, 'utf8').includes('support/browser');

/** A test file that starts services from the run's production bundle (test/support/run-bundle.ts). */
const startsBundle = (test: Test): boolean => /\b(start(Standby)?WorkerProcess(es)?|runBundled|runBundleDir)\(/.test(readFileSync(test.path, 'utf8'));

/** Tells test/global-setup.ts whether the run needs the production bundle built (about 2 s, more on a busy machine). */
export const BUILD_BUNDLE = 'WORKTRACK_TEST_BUILD_BUNDLE';

/** Files that start servers of their own (Sentinels, clusters, PgBouncer, replicas) or drive Chromium: the run's longest. */
const isHeavy = (test: Test): boolean => test.context.config.displayName?.name === 'topologies' || drivesChromium(test);

/**
 * Jest's own order with the heavy files first, after what Jest has no other hook for (it is the one place that sees
 * the run's test files before anything starts, the global setup included): whether the run needs the
 * production bundle, and a check: when the run includes a browser test and there is
 * no Chromium, it stops at once with one line saying how to install it, instead of migrating a
 * database and failing every browser test one by one. Runs of other tests need no Chromium.
 * Chromium is not installed from here: a test run that asks for root and downloads a browser
 * would surprise whoever started it (`.ci/run` installs it, as root, before the tests).
 */
export default class ChromiumCheckingSequencer extends TestSequencer {
  readonly #listingOnly: boolean;

  constructor(options: TestSequencerOptions) {
    super(options);
    this.#listingOnly = options.globalConfig.listTests;
  }

  override sort(tests: Test[]): Test[] | Promise<Test[]> {
    const problem = this.#listingOnly || !tests.some(drivesChromium) ? undefined : missingChromium();
    if (problem) {
      process.stderr.write(`${problem}\n`);
      process.exit(1);
    }
    if (tests.some(startsBundle)) process.env[BUILD_BUNDLE] = '1';
    return this.#heaviestFirst(super.sort(tests));
  }

  /**
   * Jest's order (failed, then slowest by its cache, then largest) with the heavy files ahead: on a
   * fresh clone Jest knows no durations, and its largest-first order would leave the topology files,
   * short but long-running, to the end of the run, where one worker then runs them alone.
   */
  async #heaviestFirst(sorted: Test[] | Promise<Test[]>): Promise<Test[]> {
    const tests = await sorted;
    return [...tests.filter(isHeavy), ...tests.filter((test) => !isHeavy(test))];
  }
}
