import { defineRoute } from '../../http/route';
import { taskRecordSchema, taskResource, toTaskRecord } from './task-record';
import { taskParams } from './task-schemas';

export const getTask = defineRoute({
  operationId: 'getTask',
  method: 'get',
  path: '/tasks/:taskId',
  summary: 'Get a task',
  tag: 'Tasks',
  permission: 'tasks:read',
  params: taskParams,
  resource: taskResource,
  etag: true,
  status: 200,
  response: taskRecordSchema,
  handler: async ({ resource }) => toTaskRecord(resource),
});
