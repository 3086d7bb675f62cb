import { scoped } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { envelope } from '../../http/pagination';
import { toProjectRecord } from './project-record';
import { listProjectsQuery } from './project-schemas';

export const listProjects = defineRoute({
  method: 'get',
  path: '/projects',
  permission: 'projects:read',
  query: listProjectsQuery,
  handler: async ({ query, tenant, deps }) => {
    const { limit, offset, archived } = query;
    const where = scoped(tenant, archived ? {} : { archived: false });
    const [projects, total] = await deps.db.$transaction([
      deps.db.project.findMany({ where, orderBy: { id: 'desc' }, take: limit, skip: offset }),
      deps.db.project.count({ where }),
    ]);
    return envelope(projects.map(toProjectRecord), total, { limit, offset });
  },
});
