import type { Task, TenantData } from '@worktrack/db';
import { events } from '@worktrack/events';
import type { TaskRecord } from '@worktrack/events';
import { assertMembers } from '../members/assert-member';
import { assertProjectOpen } from '../projects/assert-project-open';
import { toTaskRecord } from '../tasks/task-record';
import { assertTaskLinks, lockTaskLinks } from './task-links';

/**
 * A new task with labels or a parent: their checks hold locks (the label vocabulary against a
 * deletion, the project's trees against a concurrent move), so it is written in a transaction
 * rather than in the one statement of a plain task's creation.
 */
export function createLinkedTask(data: TenantData, task: Omit<Task, 'organizationId' | 'mode'>): Promise<TaskRecord> {
  return data.commitWithEvents(async (tx) => {
    await lockTaskLinks(tx, { projectId: task.projectId }, task);
    await assertProjectOpen(tx, task.projectId);
    if (task.assigneeId) await assertMembers(tx, [task.assigneeId], 'assigneeId');
    await assertTaskLinks(tx, { id: null, projectId: task.projectId, parentId: null }, task);
    const record = toTaskRecord(await tx.tasks.create(task));
    return { result: record, events: [events.taskCreated(record)] };
  });
}
