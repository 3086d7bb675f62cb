import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { runBundleDir } from './support/run-bundle';
import { runDocumentPath } from './support/run-document';

/** Drops the run's template and every per-file copy, and removes the run's OpenAPI document and bundle. */
export default async function globalTeardown(): Promise<void> {
  const template = process.env.WORKTRACK_TEST_TEMPLATE;
  if (!template?.startsWith('worktrack_test_')) return;
  rmSync(runDocumentPath(), { force: true });
  rmSync(runBundleDir(), { recursive: true, force: true });
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${template}%`]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
