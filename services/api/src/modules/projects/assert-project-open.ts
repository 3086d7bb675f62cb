import type { Scope, Tx } from '@worktrack/db';
import { invalid } from '../../http/errors';
import { projectResource } from './project-record';

/** A new task's or file's project must be one of the tenant's, and not archived (docs/decisions.md#resources). */
export async function assertProjectOpen(tx: Tx, scope: Scope, projectId: string): Promise<void> {
  const project = await projectResource.find(tx, scope, projectId);
  if (!project) throw invalid('projectId', 'projectId must be a project of the organization');
  if (project.archived) throw invalid('projectId', 'The project is archived; unarchive it first');
}
