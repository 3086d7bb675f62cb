import { parseArgs } from 'node:util';
import type { UnscopedData } from '@worktrack/db';

export const orgsListUsage = `pnpm cli orgs list [--json]
    Lists every organization with its plan, quota and member count.`;

export async function orgsList(data: UnscopedData, argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false } } });
  const organizations = await data.organizationsWithMemberCounts();
  const rows = organizations.map((o) => ({
    id: o.id,
    name: o.name,
    plan: o.plan,
    dailyQuota: o.dailyQuota,
    members: o._count.memberships,
    createdAt: o.createdAt.toISOString(),
  }));
  if (values.json) {
    console.log(JSON.stringify(rows));
    return;
  }
  if (rows.length === 0) {
    console.log('No organizations yet; create one with `pnpm cli bootstrap`.');
    return;
  }
  console.table(rows);
}
