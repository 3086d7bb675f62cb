import { scoped } from '@worktrack/db';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { toTaskRecord } from './task-record';
import { taskParams } from './task-schemas';

export const getTask = defineRoute({
  method: 'get',
  path: '/tasks/:taskId',
  permission: 'tasks:read',
  params: taskParams,
  handler: async ({ params, tenant, deps }) => {
    const task = await deps.db.task.findFirst({ where: scoped(tenant, { id: params.taskId }) });
    if (!task) throw notFound('taskId', 'No such task');
    return toTaskRecord(task);
  },
});
