import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { defineRoute } from '../../http/route';
import { projectResource, toProjectRecord } from './project-record';
import { projectParams } from './project-schemas';

/**
 * Deleting a project deletes its tasks (and their comments) and its files by foreign-key cascade.
 * The files' objects go first: if the store is down the call fails (503) and nothing is deleted.
 */
export const deleteProject = defineRoute({
  method: 'delete',
  path: '/projects/:projectId',
  summary: 'Delete a project',
  description:
    'Also deletes its tasks, their comments, and its files with their stored objects. If the object store is unavailable (503), nothing is deleted.',
  tag: 'Projects',
  permission: 'projects:write',
  params: projectParams,
  resource: projectResource,
  status: 204,
  response: null,
  handler: async ({ resource: project, tenant, deps }) => {
    const files = await deps.db.file.findMany({ where: { projectId: project.id }, select: { storageKey: true } });
    await deps.store.deleteMany(files.map((f) => f.storageKey));
    return commitWithEvents(deps, tenant, async (tx) => {
      const { count } = await tx.project.deleteMany({ where: { id: project.id } });
      return { result: undefined, events: count === 1 ? [events.projectDeleted(toProjectRecord(project))] : [] };
    });
  },
});
