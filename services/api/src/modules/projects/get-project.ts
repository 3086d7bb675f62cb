import { scoped } from '@worktrack/db';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { toProjectRecord } from './project-record';
import { projectParams } from './project-schemas';

export const getProject = defineRoute({
  method: 'get',
  path: '/projects/:projectId',
  permission: 'projects:read',
  params: projectParams,
  handler: async ({ params, tenant, deps }) => {
    const project = await deps.db.project.findFirst({ where: scoped(tenant, { id: params.projectId }) });
    if (!project) throw notFound('projectId', 'No such project');
    return toProjectRecord(project);
  },
});
