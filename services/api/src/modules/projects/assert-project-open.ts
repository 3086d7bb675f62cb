import type { Scope, TenantTx } from '@worktrack/db';
import { invalid } from '../../http/errors';

/** Why a new task's or file's project is refused (docs/decisions.md#resources). */
export const projectRefusals = {
  /** None of the key's projects; when it is one of the other mode's, the refusal says so. */
  missing: async (tx: TenantTx, projectId: string, mode: Scope['mode']) => {
    if (!(await tx.projects.inOtherMode(projectId))) return invalid('projectId', 'projectId must name a project of the organization');
    const other = mode === 'live' ? 'test' : 'live';
    return invalid('projectId', `That project is a ${other} project and this is a ${mode} key: use a ${other} key, or one of the ${mode} projects`);
  },
  archived: () => invalid('projectId', 'The project is archived; unarchive it first'),
};

/** A new task's or file's project must be one of the tenant's, and not archived. */
export async function assertProjectOpen(tx: TenantTx, projectId: string, mode: Scope['mode']): Promise<void> {
  const project = await tx.projects.find(projectId);
  if (!project) throw await projectRefusals.missing(tx, projectId, mode);
  if (project.archived) throw projectRefusals.archived();
}
