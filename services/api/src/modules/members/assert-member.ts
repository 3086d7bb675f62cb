import type { Tx } from '@worktrack/db';
import { invalid } from '../../http/errors';

/** Refuses (400, naming the field) any user id that is not a member of the organization. */
export async function assertMembers(tx: Tx, organizationId: string, userIds: string[], param: string): Promise<void> {
  const unique = [...new Set(userIds)];
  if (unique.length === 0) return;
  const found = await tx.membership.count({ where: { organizationId, userId: { in: unique } } });
  if (found !== unique.length) throw invalid(param, `${param} must name members of the organization`);
}
