import { Prisma, type Project } from '@worktrack/db';
import { sqlListing } from '../../http/keyset';
import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { projectOrder, type ProjectSortField } from './project-order';
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
    const { tenant, query } = request;
    const archived = query.archived ? Prisma.empty : Prisma.sql` AND NOT archived`;
    const conditions = Prisma.sql`"organizationId" = ${tenant.organizationId} AND mode = ${tenant.mode}::"Mode"${archived}`;
    return paginate(request, {
      order: projectOrder,
      ...sqlListing<ProjectSortField, Project>(request.deps.sql, 'Project', conditions, projectOrder.fields),
      toRecord: toProjectRecord,
    });
  },
});
