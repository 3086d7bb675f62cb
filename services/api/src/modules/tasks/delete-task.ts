import { scoped } from '@worktrack/db';
import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { toTaskRecord } from './task-record';
import { taskParams } from './task-schemas';

export const deleteTask = defineRoute({
  method: 'delete',
  path: '/tasks/:taskId',
  permission: 'tasks:write',
  params: taskParams,
  handler: ({ params, tenant, deps }) =>
    commitWithEvents(deps, tenant, async (tx) => {
      const task = await tx.task.findFirst({ where: scoped(tenant, { id: params.taskId }) });
      if (!task) throw notFound('taskId', 'No such task');
      await tx.task.delete({ where: { id: task.id } });
      return { result: undefined, events: [events.taskDeleted(toTaskRecord(task))] };
    }),
});
