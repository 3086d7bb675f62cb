import type { NewTask, TenantTx } from '@worktrack/db';
import type { TaskRecord } from '@worktrack/events';
import { toTaskRecord } from '../tasks/task-record';
import { assertTaskLinks, lockTaskLinks } from './task-links';

/**
 * A new task with labels or a parent (its project and assignee checked by the write rules before):
 * their checks hold locks (the label vocabulary against a
 * deletion, the project's trees against a concurrent move), so it is written in a transaction
 * rather than in the one statement of a plain task's creation, by the caller, which records its event.
 */
export async function createLinkedTask(tx: TenantTx, task: NewTask): Promise<TaskRecord> {
  await lockTaskLinks(tx, { projectId: task.projectId }, task);
  await assertTaskLinks(tx, { id: null, projectId: task.projectId, parentId: null }, task);
  return toTaskRecord(await tx.tasks.create(task));
}
