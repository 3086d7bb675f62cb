import { newId, type NewTask, type TenantTx } from '@worktrack/db';
import { events, type TaskRecord } from '@worktrack/events';
import type { Tenant } from '../../http/auth';
import { defineRoute } from '../../http/route';
import type { Named } from '../../write-rules';
import { toTaskRecord, taskRecordSchema } from './task-record';
import { createTaskBody, type TaskInput } from './task-schemas';

/** What a new task names that the write rules check: its project and its assignee. */
const namedBy = (body: TaskInput): Named => ({
  projectId: body.projectId,
  ...(body.assigneeId && { members: { ids: [body.assigneeId], param: 'assigneeId' } }),
});

function newTask(body: TaskInput, tenant: Tenant): { task: NewTask; record: TaskRecord } {
  const now = new Date();
  const task: NewTask = {
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
    createdAt: now,
    updatedAt: now,
  };
  return { task, record: toTaskRecord({ ...task, organizationId: tenant.organizationId, mode: tenant.mode }) };
}

/**
 * Many new tasks in one statement, in the caller's transaction, which records their events (a bulk
 * request's creates, whose write rules were checked together beforehand).
 */
export async function insertTasks(tx: TenantTx, tenant: Tenant, bodies: TaskInput[]): Promise<TaskRecord[]> {
  const created = bodies.map((body) => newTask(body, tenant));
  await tx.tasks.insertMany(created.map(({ task }) => task));
  return created.map(({ record }) => record);
}

/**
 * The busiest write: once the pipeline checked the rules (one read), the task and its event in one statement
 * outside any transaction (through Prisma's interactive transaction the same work took five
 * statements and ran at a quarter of the rate: docs/performance.md#what-the-figures-rest-on).
 */
export const createTask = defineRoute({
  operationId: 'createTask',
  method: 'post',
  path: '/tasks',
  summary: 'Create a task',
  tag: 'Tasks',
  permission: 'tasks:write',
  body: createTaskBody,
  references: namedBy,
  status: 201,
  response: taskRecordSchema,
  handler: ({ body, tenant, commit }) =>
    commit({
      oneStatement: async (data) => {
        const { task, record } = newTask(body, tenant);
        const { awaitedEventIds } = await data.tasks.insertWithEvent(task, events.taskCreated(record));
        return { result: record, awaitedEventIds };
      },
    }),
});
