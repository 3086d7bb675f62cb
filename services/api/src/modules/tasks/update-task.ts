import { events, type DomainEvent } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { previousAttributes } from '../changes';
import { assertTaskLinks, lockTaskLinks } from '../subtasks/task-links';
import { taskRecordSchema, taskResource, toTaskRecord } from './task-record';
import { taskParams, updateTaskBody, type CustomFields, type TaskPatch } from './task-schemas';

type TaskChanges = Omit<TaskPatch, 'dueDate' | 'customFields'> & { dueDate?: Date | null; customFields?: CustomFields };

function toTaskChanges(patch: TaskPatch): TaskChanges {
  const { dueDate, customFields, ...rest } = patch;
  return {
    ...rest,
    ...(dueDate !== undefined && { dueDate: dueDate === null ? null : new Date(dueDate) }),
    ...(customFields !== undefined && { customFields: customFields ?? {} }),
  };
}

export const updateTask = defineRoute({
  operationId: 'updateTask',
  method: 'patch',
  path: '/tasks/:taskId',
  summary: 'Update a task',
  description: 'A move to `done` emits both `task.updated` and `task.completed`.',
  tag: 'Tasks',
  permission: 'tasks:write',
  params: taskParams,
  body: updateTaskBody,
  references: (body) => ({ members: { ids: body.assigneeId ? [body.assigneeId] : [], param: 'assigneeId' } }),
  locks: taskResource,
  etag: true,
  status: 200,
  response: taskRecordSchema,
  handler: ({ params, body, lock, commit }) =>
    commit(async (tx) => {
      await lockTaskLinks(tx, { taskId: params.taskId }, body);
      const existing = await lock(tx);
      await assertTaskLinks(tx, existing, body);

      const data = toTaskChanges(body);
      const before = toTaskRecord(existing);
      const changed = previousAttributes(before, toTaskRecord({ ...existing, ...data }));
      if (Object.keys(changed).length === 0) return { result: before, events: [] };

      const after = toTaskRecord(await tx.tasks.update(existing.id, data));
      const emitted: DomainEvent[] = [events.taskUpdated(after, changed)];
      if (changed.status !== undefined && after.status === 'done') emitted.push(events.taskCompleted(after));
      return { result: after, events: emitted };
    }),
});
