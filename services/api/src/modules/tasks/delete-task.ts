import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { defineRoute } from '../../http/route';
import { taskResource, toTaskRecord } from './task-record';
import { taskParams } from './task-schemas';

export const deleteTask = defineRoute({
  method: 'delete',
  path: '/tasks/:taskId',
  summary: 'Delete a task and its comments',
  tag: 'Tasks',
  permission: 'tasks:write',
  params: taskParams,
  // Locked and loaded inside the transaction rather than loaded before it.
  errors: ['not_found'],
  status: 204,
  response: null,
  handler: async ({ params, tenant, deps }) =>
    commitWithEvents(deps, tenant, async (tx) => {
      const task = await taskResource.lock(tx, tenant, params.taskId);
      await tx.task.delete({ where: { id: task.id } });
      return { result: undefined, events: [events.taskDeleted(toTaskRecord(task))] };
    }),
});
