import { newId, type NewTask, type TenantTx } from '@worktrack/db';
import { events, type TaskRecord } from '@worktrack/events';
import type { Tenant } from '../../http/auth';
import { defineRoute } from '../../http/route';
import type { Named } from '../../write-rules';
import { toTaskRecord, taskRecordSchema } from './task-record';
import { createTaskBody, type TaskInput } from './task-schemas';
import { createLinkedTask } from '../subtasks/create-linked-task';

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
    labelIds: body.labelIds ?? [],
    parentId: body.parentId ?? null,
    createdAt: now,
    updatedAt: now,
  };
  return { task, record: toTaskRecord({ ...task, organizationId: tenant.organizationId, mode: tenant.mode, subtasks: { total: 0, done: 0 } }) };
}

/**
 * Many new tasks in one statement, in the caller's transaction, which records their events (a bulk
 * request's creates, whose write rules were checked together beforehand). A task whose labels or
 * parent are refused is left out (undefined in its place) and its refusal given to `refused` with its
 * position, so every refused one is named; the refusals come before any write of theirs, so the
 * transaction stays usable.
 */
export async function insertTasks(
  tx: TenantTx,
  tenant: Tenant,
  bodies: TaskInput[],
  refused: (position: number, err: unknown) => void,
): Promise<(TaskRecord | undefined)[]> {
  const created = bodies.map((body) => newTask(body, tenant));
  const plain = created.filter(({ task }) => !isLinked(task));
  await tx.tasks.insertMany(plain.map(({ task }) => task));
  const records: (TaskRecord | undefined)[] = [];
  for (const [position, { task, record }] of created.entries()) {
    if (!isLinked(task)) records.push(record);
    else records.push(await createLinkedTask(tx, task).catch((err: unknown) => void refused(position, err)));
  }
  return records;
}

/** A task with labels or a parent, whose links are checked under their locks. */
const isLinked = (task: NewTask) => task.labelIds.length > 0 || task.parentId !== null;

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
  handler: ({ body, tenant, commit }) => {
    const { task, record } = newTask(body, tenant);
    if (isLinked(task))
      return commit(async (tx) => {
        const linked = await createLinkedTask(tx, task);
        return { result: linked, events: [events.taskCreated(linked)] };
      });
    return commit({
      oneStatement: async (data) => {
        const { awaitedEventIds } = await data.tasks.insertWithEvent(task, events.taskCreated(record));
        return { result: record, awaitedEventIds };
      },
    });
  },
});
