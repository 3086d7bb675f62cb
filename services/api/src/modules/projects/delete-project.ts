import { scoped } from '@worktrack/db';
import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { toProjectRecord } from './project-record';
import { projectParams } from './project-schemas';

/** Deleting a project deletes its tasks (and their comments) and its files by foreign-key cascade. */
export const deleteProject = defineRoute({
  method: 'delete',
  path: '/projects/:projectId',
  permission: 'projects:write',
  params: projectParams,
  handler: ({ params, tenant, deps }) =>
    commitWithEvents(deps, tenant, async (tx) => {
      const project = await tx.project.findFirst({ where: scoped(tenant, { id: params.projectId }) });
      if (!project) throw notFound('projectId', 'No such project');
      await tx.project.delete({ where: { id: project.id } });
      return { result: undefined, events: [events.projectDeleted(toProjectRecord(project))] };
    }),
});
