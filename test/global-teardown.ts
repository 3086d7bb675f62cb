import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { runBundleDir } from './support/run-bundle';
import { runDocumentPath } from './support/run-document';

/**
 * Each drop waits for a checkpoint (Postgres 15), and drops waiting together share one: 100 copies
 * took 25.9 s four at a time, 20.9 s sixteen and 17.8 s thirty-two at a time, all of it at the run's end.
 */
const DROPS_AT_ONCE = 32;

/** Drops the run's template and every per-file copy, and removes the run's OpenAPI document and bundle. */
export default async function globalTeardown(): Promise<void> {
  const template = process.env.WORKTRACK_TEST_TEMPLATE;
  if (!template?.startsWith('worktrack_test_')) return;
  rmSync(runDocumentPath(), { force: true });
  rmSync(runBundleDir(), { recursive: true, force: true });
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = '/postgres';
  const connect = async () => {
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    return client;
  };
  const admin = await connect();
  const helpers: Client[] = [];
  try {
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${template}%`]);
    // As many at a time as there are copies, up to DROPS_AT_ONCE (a run of one file opens no more
    // connections than it drops); the template last, once no copy of it is left.
    const copies = rows.map((row) => row.datname).filter((name) => name !== template);
    helpers.push(...(await Promise.all(Array.from({ length: Math.max(0, Math.min(DROPS_AT_ONCE, copies.length) - 1) }, connect))));
    await Promise.all(
      [admin, ...helpers].map(async (client) => {
        for (let name = copies.pop(); name !== undefined; name = copies.pop()) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }),
    );
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  } finally {
    await Promise.all([admin, ...helpers].map((client) => client.end()));
  }
}
