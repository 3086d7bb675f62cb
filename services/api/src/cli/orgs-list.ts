import { parseArgs } from 'node:util';
import type { Db } from '@worktrack/db';

export const orgsListUsage = `pnpm cli orgs list [--json]
    Lists every organization with its plan, quota and member count.`;

export async function orgsList(db: Db, argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false } } });
  const organizations = await db.organization.findMany({ orderBy: { id: 'asc' }, include: { _count: { select: { memberships: true } } } });
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
