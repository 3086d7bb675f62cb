import { scoped } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { taskRecordSchema, toTaskRecord } from './task-record';
import { listTasksQuery } from './task-schemas';

export const listTasks = defineRoute({
  method: 'get',
  path: '/tasks',
  summary: 'List tasks',
  description: 'Newest first. Filters combine.',
  tag: 'Tasks',
  permission: 'tasks:read',
  query: listTasksQuery,
  status: 200,
  response: pageOf(taskRecordSchema),
  handler: async ({ query, tenant, deps }) => {
    const { limit, offset, ...filters } = query;
    const where = scoped(tenant, filters);
    return paginate(
      { limit, offset },
      (window) => deps.db.task.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.task.count({ where }),
      toTaskRecord,
    );
  },
});
