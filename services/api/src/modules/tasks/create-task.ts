import { newId, scoped } from '@worktrack/db';
import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { defineRoute } from '../../http/route';
import { assertMembers } from '../members/assert-member';
import { assertProjectOpen } from '../projects/assert-project-open';
import { toTaskRecord } from './task-record';
import { createTaskBody } from './task-schemas';

export const createTask = defineRoute({
  method: 'post',
  path: '/tasks',
  permission: 'tasks:write',
  body: createTaskBody,
  status: 201,
  handler: ({ body, tenant, deps }) =>
    commitWithEvents(deps, tenant, async (tx) => {
      await assertProjectOpen(tx, tenant, body.projectId);
      if (body.assigneeId) await assertMembers(tx, tenant.organizationId, [body.assigneeId], 'assigneeId');
      const task = await tx.task.create({
        data: scoped(tenant, {
          id: newId('task'),
          projectId: body.projectId,
          title: body.title,
          description: body.description ?? null,
          status: body.status,
          priority: body.priority,
          assigneeId: body.assigneeId ?? null,
          creatorId: tenant.userId,
          dueDate: body.dueDate ? new Date(body.dueDate) : null,
          customFields: body.customFields ?? {},
        }),
      });
      const record = toTaskRecord(task);
      return { result: record, events: [events.taskCreated(record)] };
    }),
});
