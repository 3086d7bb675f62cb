import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Where test/global-setup.ts builds the run's production bundle (`scripts/build.mjs`, as the image
 * ships it), named after the run's template database. Tests that need the services as separate
 * processes start these, which are ready in about half the time and CPU of `node --import tsx`.
 */
export function runBundleDir(): string {
  return path.join(tmpdir(), `${process.env.WORKTRACK_TEST_TEMPLATE}-dist`);
}
