import { scoped } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { envelope } from '../../http/pagination';
import { toTaskRecord } from './task-record';
import { listTasksQuery } from './task-schemas';

export const listTasks = defineRoute({
  method: 'get',
  path: '/tasks',
  permission: 'tasks:read',
  query: listTasksQuery,
  handler: async ({ query, tenant, deps }) => {
    const { limit, offset, ...filters } = query;
    const where = scoped(tenant, filters);
    const [tasks, total] = await deps.db.$transaction([
      deps.db.task.findMany({ where, orderBy: { id: 'desc' }, take: limit, skip: offset }),
      deps.db.task.count({ where }),
    ]);
    return envelope(tasks.map(toTaskRecord), total, { limit, offset });
  },
});
