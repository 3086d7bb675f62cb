import type { TenantTx } from '@worktrack/db';
import { invalid } from '../../http/errors';

/** Why a new task's or file's project is refused (docs/decisions.md#resources). */
export const projectRefusals = {
  missing: () => invalid('projectId', 'projectId must be a project of the organization'),
  archived: () => invalid('projectId', 'The project is archived; unarchive it first'),
};

/** A new task's or file's project must be one of the tenant's, and not archived. */
export async function assertProjectOpen(tx: TenantTx, projectId: string): Promise<void> {
  const project = await tx.projects.find(projectId);
  if (!project) throw projectRefusals.missing();
  if (project.archived) throw projectRefusals.archived();
}
