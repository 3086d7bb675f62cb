// Databases of a bench's own, so that the services it starts share no outbox with the running ones.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { repoRoot } from '../test/support/processes';

/** A new database on the server of `serverUrl`, migrated as the suite's are; its URL. */
export function createDatabase(name: string, serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/worktrack'): string {
  const url = new URL(serverUrl);
  url.pathname = `/worktrack_bench_${name}_${Date.now().toString(36)}`;
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'prisma.mjs'), 'deploy'], {
    env: { ...process.env, DATABASE_URL: url.toString() },
    stdio: 'ignore',
  });
  return url.toString();
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}
