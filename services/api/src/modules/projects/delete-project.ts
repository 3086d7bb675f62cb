import { scoped } from '@worktrack/db';
import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { toProjectRecord } from './project-record';
import { projectParams } from './project-schemas';

/**
 * Deleting a project deletes its tasks (and their comments) and its files by foreign-key cascade.
 * The files' objects go first: if the store is down the call fails (503) and nothing is deleted.
 */
export const deleteProject = defineRoute({
  method: 'delete',
  path: '/projects/:projectId',
  permission: 'projects:write',
  params: projectParams,
  handler: async ({ params, tenant, deps }) => {
    const project = await deps.db.project.findFirst({ where: scoped(tenant, { id: params.projectId }) });
    if (!project) throw notFound('projectId', 'No such project');
    const files = await deps.db.file.findMany({ where: { projectId: project.id }, select: { storageKey: true } });
    await deps.store.deleteMany(files.map((f) => f.storageKey));
    return commitWithEvents(deps, tenant, async (tx) => {
      const { count } = await tx.project.deleteMany({ where: { id: project.id } });
      return { result: undefined, events: count === 1 ? [events.projectDeleted(toProjectRecord(project))] : [] };
    });
  },
});
