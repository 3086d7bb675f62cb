import type { TenantTx } from '@worktrack/db';
import { invalid } from '../../http/errors';

/** Refuses (400, naming the field) any user id that is not a member of the organization. */
export async function assertMembers(tx: TenantTx, userIds: string[], param: string): Promise<void> {
  const unique = [...new Set(userIds)];
  if (unique.length === 0) return;
  if ((await tx.members.countOf(unique)) !== unique.length) throw invalid(param, `${param} must name members of the organization`);
}
