import { Client } from 'pg';

/**
 * Resolves once the database answers and holds the schema; fails with the driver's error otherwise
 * (unreachable, missing, not migrated), which the start's one line then names: a service started
 * before `pnpm db:migrate` stops at once instead of failing every request.
 */
export async function checkDatabase(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1 FROM "Organization" LIMIT 0');
  } finally {
    await client.end().catch(() => undefined);
  }
}
