import type { Task } from '@worktrack/db';
import { sqlListing } from '../../http/keyset';
import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { taskConditions } from './task-filters';
import { taskOrder, type TaskSortField } from './task-order';
import { taskRecordSchema, toTaskRecord } from './task-record';
import { listTasksQuery } from './task-schemas';

export const listTasks = defineRoute({
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
  handler: async (request) =>
    paginate(request, {
      order: taskOrder,
      ...sqlListing<TaskSortField, Task>(request.deps.db, 'Task', taskConditions(request.tenant, request.query), taskOrder.fields),
      toRecord: toTaskRecord,
    }),
});
