import { scoped } from '@worktrack/db';
import { defineRoute } from '../../http/route';
import { paginate } from '../../http/pagination';
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
    return paginate(
      { limit, offset },
      (window) => deps.db.task.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.task.count({ where }),
      toTaskRecord,
    );
  },
});
