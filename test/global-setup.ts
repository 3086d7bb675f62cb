import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Creates and migrates this run's template database. Each test file then gets its own copy
 * (test/database-per-file.ts), so files running in parallel never see each other's rows.
 */
export default function globalSetup(): void {
  // The run migrates and uses its own databases on DATABASE_URL's server, never a direct URL set for another.
  delete process.env.DATABASE_DIRECT_URL;
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/worktrack');
  url.pathname = `/worktrack_test_${Date.now().toString(36)}_${process.pid}`;
  execFileSync(process.execPath, [path.join(__dirname, '..', 'scripts', 'prisma.mjs'), 'deploy'], {
    env: { ...process.env, DATABASE_URL: url.toString() },
    stdio: 'inherit',
  });
  process.env.DATABASE_URL = url.toString();
  process.env.WORKTRACK_TEST_TEMPLATE = url.pathname.slice(1);
}
