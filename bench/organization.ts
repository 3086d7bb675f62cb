// The organizations benches measure as: enterprise plan, a quota no bench reaches, a live key.
import { createDb, unscopedData } from '@worktrack/db';
import { bootstrapOrganization } from '../services/api/src/modules/organizations/bootstrap-organization';

export async function organization(databaseUrl: string, name: string) {
  const db = createDb(databaseUrl, { poolSize: 2 });
  try {
    const org = await bootstrapOrganization(unscopedData({ db }), {
      name: `${name} ${Date.now()}`,
      email: `bench-${Date.now()}@example.com`,
      plan: 'enterprise',
      dailyQuota: 100_000_000,
    });
    return { id: org.organization.id, userId: org.user.id, headers: { authorization: `Bearer ${org.liveKey}`, 'content-type': 'application/json' } };
  } finally {
    await db.$disconnect();
  }
}
