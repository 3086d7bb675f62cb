import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { detachChildren, lockTreeOf } from '../subtasks/detach-children';
import { taskResource, toTaskRecord } from './task-record';
import { taskParams } from './task-schemas';

export const deleteTask = defineRoute({
  operationId: 'deleteTask',
  method: 'delete',
  path: '/tasks/:taskId',
  summary: 'Delete a task and its comments',
  description: 'Also deletes its relations. Its sub-tasks stay, detached: each gets `task.updated` with `previousAttributes.parentId`.',
  tag: 'Tasks',
  permission: 'tasks:write',
  params: taskParams,
  locks: taskResource,
  status: 204,
  response: null,
  handler: async ({ params, lock, commit }) =>
    commit(async (tx) => {
      await lockTreeOf(tx, params.taskId);
      const task = await lock(tx);
      const detached = await detachChildren(tx, task.id);
      await tx.tasks.remove(task.id);
      return { result: undefined, events: [...detached, events.taskDeleted(toTaskRecord(task))] };
    }),
});
