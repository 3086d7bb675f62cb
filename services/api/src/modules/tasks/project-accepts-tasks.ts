import { scoped, type Scope, type Tx } from '@worktrack/db';
import { invalid } from '../../http/errors';

/** DECISIONS §3: a task's project must be one of the tenant's, and not archived. */
export async function assertProjectAcceptsTasks(tx: Tx, scope: Scope, projectId: string): Promise<void> {
  const project = await tx.project.findFirst({ where: scoped(scope, { id: projectId }), select: { archived: true } });
  if (!project) throw invalid('projectId', 'projectId must be a project of the organization');
  if (project.archived) throw invalid('projectId', 'The project is archived; unarchive it to add tasks');
}
