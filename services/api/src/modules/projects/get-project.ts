import { defineRoute } from '../../http/route';
import { projectRecordSchema, projectResource, toProjectRecord } from './project-record';
import { projectParams } from './project-schemas';

export const getProject = defineRoute({
  operationId: 'getProject',
  method: 'get',
  path: '/projects/:projectId',
  summary: 'Get a project',
  tag: 'Projects',
  permission: 'projects:read',
  params: projectParams,
  resource: projectResource,
  etag: true,
  status: 200,
  response: projectRecordSchema,
  handler: async ({ resource }) => toProjectRecord(resource),
});
