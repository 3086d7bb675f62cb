import { scoped } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { paginate } from '../../http/pagination';
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
    return paginate(
      { limit, offset },
      (window) => deps.db.project.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.project.count({ where }),
      toProjectRecord,
    );
  },
});
