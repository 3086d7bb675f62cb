import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { taskResource, toTaskRecord } from './task-record';
import { taskParams } from './task-schemas';

export const deleteTask = defineRoute({
  operationId: 'deleteTask',
  method: 'delete',
  path: '/tasks/:taskId',
  summary: 'Delete a task and its comments',
  tag: 'Tasks',
  permission: 'tasks:write',
  params: taskParams,
  locks: taskResource,
  status: 204,
  response: null,
  handler: async ({ lock, commit }) =>
    commit(async (tx) => {
      const task = await lock(tx);
      await tx.tasks.remove(task.id);
      return { result: undefined, events: [events.taskDeleted(toTaskRecord(task))] };
    }),
});
