import { newId, type Task } from '@worktrack/db';
import { events } from '@worktrack/events';
import { invalid } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { projectRefusals } from '../projects/assert-project-open';
import { createLinkedTask } from '../subtasks/create-linked-task';
import { taskRecordSchema, toTaskRecord } from './task-record';
import { createTaskBody } from './task-schemas';

const refusals = {
  project_missing: projectRefusals.missing,
  project_archived: projectRefusals.archived,
  assignee_not_member: () => invalid('assigneeId', 'assigneeId must name members of the organization'),
};

/**
 * The busiest write: the data layer checks the project and the assignee, inserts the task and
 * writes its event in one statement (through Prisma's interactive transaction the same work took
 * five statements and ran at a quarter of the rate: docs/performance.md#what-the-figures-rest-on),
 * and says which check refused.
 */
export const createTask = defineRoute({
  operationId: 'createTask',
  method: 'post',
  path: '/tasks',
  summary: 'Create a task',
  tag: 'Tasks',
  permission: 'tasks:write',
  body: createTaskBody,
  status: 201,
  response: taskRecordSchema,
  handler: ({ body, tenant, deps }) => {
    const now = new Date();
    const task: Omit<Task, 'organizationId' | 'mode'> = {
      id: newId('task'),
      projectId: body.projectId,
      title: body.title,
      description: body.description ?? null,
      status: body.status ?? 'todo',
      priority: body.priority ?? 'medium',
      assigneeId: body.assigneeId ?? null,
      creatorId: tenant.userId,
      dueDate: body.dueDate ? new Date(body.dueDate) : null,
      customFields: body.customFields ?? {},
      labelIds: body.labelIds ?? [],
      parentId: body.parentId ?? null,
      createdAt: now,
      updatedAt: now,
    };
    if (task.labelIds.length > 0 || task.parentId) return createLinkedTask(deps.data(tenant), task);
    return deps.data(tenant).commitWithEvents({
      oneStatement: async (data) => {
        const record = toTaskRecord({ ...task, ...tenant, subtasks: { total: 0, done: 0 } });
        const written = await data.tasks.insertWithEvent(task, events.taskCreated(record));
        if (!written.inserted) throw refusals[written.refused]();
        return { result: record, awaitedEventIds: written.awaitedEventIds };
      },
    });
  },
});
