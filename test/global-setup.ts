import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Creates one fresh database for this run and migrates it; tests isolate further by organization. */
export default function globalSetup(): void {
  const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/worktrack');
  base.pathname = `/worktrack_test_${Date.now().toString(36)}_${process.pid}`;
  const databaseUrl = base.toString();
  execFileSync(process.execPath, [path.join(__dirname, '..', 'scripts', 'prisma.mjs'), 'deploy'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: 'inherit',
  });
  process.env.DATABASE_URL = databaseUrl;
}
