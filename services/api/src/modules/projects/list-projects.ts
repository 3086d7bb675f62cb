import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { projectOrder } from './project-order';
import { projectRecordSchema, toProjectRecord } from './project-record';
import { listProjectsQuery } from './project-schemas';

export const listProjects = defineRoute({
  operationId: 'listProjects',
  method: 'get',
  path: '/projects',
  summary: 'List projects',
  description: 'Newest first unless `sort` says otherwise. Archived projects are left out unless `archived=true`.',
  tag: 'Projects',
  permission: 'projects:read',
  query: listProjectsQuery,
  status: 200,
  response: pageOf(projectRecordSchema),
  handler: async (request) => {
    const { tenant, query, deps } = request;
    return paginate(request, { order: projectOrder, ...deps.data(tenant).projects.list(query), toRecord: toProjectRecord });
  },
});
