import { randomUUID } from 'node:crypto';
import { Client } from 'pg';

const busyTemplate = /is being accessed by other users/;

/**
 * A new database copied from the run's migrated template (test/global-setup.ts), on the server of the
 * run's DATABASE_URL; resolves with its URL. The run's teardown drops it with the template.
 */
export async function copyTemplateDatabase(): Promise<string> {
  const template = process.env.WORKTRACK_TEST_TEMPLATE!;
  const url = new URL(process.env.DATABASE_URL!);
  const name = `${template}_${randomUUID().slice(0, 8)}`;
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    // Postgres refuses concurrent copies of one template; parallel files take turns.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        break;
      } catch (err) {
        if (!busyTemplate.test(String(err)) || attempt === 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}
