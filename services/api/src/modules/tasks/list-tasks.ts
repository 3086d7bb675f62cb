import type { Task } from '@worktrack/db';
import { sqlListing } from '../../http/keyset';
import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { countTasks } from './task-counts';
import { taskConditions } from './task-filters';
import { taskOrder, type TaskSortField } from './task-order';
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
    const listing = sqlListing<TaskSortField, Task>(deps.sql, 'Task', taskConditions(tenant, query), taskOrder.fields);
    return paginate(request, {
      order: taskOrder,
      rows: listing.rows,
      total: () => countTasks(deps.sql, tenant, query, listing.total),
      toRecord: toTaskRecord,
    });
  },
});
