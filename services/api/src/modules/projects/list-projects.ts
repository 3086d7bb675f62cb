import { scoped } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { projectRecordSchema, toProjectRecord } from './project-record';
import { listProjectsQuery } from './project-schemas';

export const listProjects = defineRoute({
  method: 'get',
  path: '/projects',
  summary: 'List projects',
  description: 'Newest first. Archived projects are left out unless `archived=true`.',
  tag: 'Projects',
  permission: 'projects:read',
  query: listProjectsQuery,
  status: 200,
  response: pageOf(projectRecordSchema),
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
