import type { TenantTx } from '@worktrack/db';
import { invalid } from '../../http/errors';

/**
 * A task's labels must all be the tenant's (400, param `labelIds`, otherwise). The caller holds the
 * vocabulary's shared lock (`lockTaskLinks`), so none is deleted before the task commits.
 */
export async function assertLabels(tx: TenantTx, labelIds: string[]): Promise<void> {
  if ((await tx.labels.existingIds(labelIds)).length !== labelIds.length) throw invalid('labelIds', 'labelIds must name labels of the organization');
}
