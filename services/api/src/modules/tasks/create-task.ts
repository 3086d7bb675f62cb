import { insertTaskWithEvent, newId, type Task } from '@worktrack/db';
import { events, outboxRow } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { assertMembers } from '../members/assert-member';
import { assertProjectOpen } from '../projects/assert-project-open';
import { taskRecordSchema, toTaskRecord } from './task-record';
import { createTaskBody } from './task-schemas';

/**
 * The busiest write, done in one statement: the project and assignee checks, the task and its
 * outbox row commit together or not at all. Through Prisma's interactive transaction the same
 * work took five statements and ran at a quarter of the rate (docs/performance.md#what-the-figures-rest-on). When nothing
 * was inserted, the checks run again one by one to say which field was wrong.
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
  handler: async ({ body, tenant, deps }) => {
    const now = new Date();
    const task: Task = {
      id: newId('task'),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      projectId: body.projectId,
      title: body.title,
      description: body.description ?? null,
      status: body.status ?? 'todo',
      priority: body.priority ?? 'medium',
      assigneeId: body.assigneeId ?? null,
      creatorId: tenant.userId,
      dueDate: body.dueDate ? new Date(body.dueDate) : null,
      customFields: body.customFields ?? {},
      createdAt: now,
      updatedAt: now,
    };
    const record = toTaskRecord(task);
    const event = outboxRow(tenant, events.taskCreated(record));

    const { inserted, awaited } = await insertTaskWithEvent(deps.sql, task, event);

    if (!inserted) {
      await assertProjectOpen(deps.db, tenant, task.projectId);
      if (task.assigneeId) await assertMembers(deps.db, tenant.organizationId, [task.assigneeId], 'assigneeId');
      throw new Error(`task ${task.id} was not inserted, yet its project and assignee are valid`);
    }
    if (awaited) deps.publisher.publish(tenant.organizationId, [event.id]);
    return record;
  },
});
