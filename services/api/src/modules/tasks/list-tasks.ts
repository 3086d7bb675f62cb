import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { taskOrder } from './task-order';
import { taskRecordSchema, toTaskRecord } from './task-record';
import { listTasksQuery } from './task-schemas';

export const listTasks = defineRoute({
  operationId: 'listTasks',
  method: 'get',
  path: '/tasks',
  summary: 'List tasks',
  description:
    'Newest first unless `sort` says otherwise. Filters combine; a list filter (`status=todo,in_progress`) matches any of its values. Page with `cursor` (stable while tasks are added) or `offset`.',
  tag: 'Tasks',
  permission: 'tasks:read',
  query: listTasksQuery,
  status: 200,
  response: pageOf(taskRecordSchema),
  handler: async (request) => {
    const { deps, tenant, query } = request;
    return paginate(request, { order: taskOrder, ...deps.data(tenant).tasks.list(query), toRecord: toTaskRecord });
  },
});
