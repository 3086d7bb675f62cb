import type { TenantTx } from '@worktrack/db';
import { events, type DomainEvent } from '@worktrack/events';
import { toTaskRecord } from '../tasks/task-record';

/**
 * Before a task's deletion takes its row lock: its project's trees, shared, so that no move puts a
 * child under it meanwhile (moves hold them alone). Nothing for an unknown task (its row lock answers).
 */
export async function lockTreeOf(tx: TenantTx, taskId: string): Promise<void> {
  const task = await tx.tasks.find(taskId);
  if (task) await tx.subtaskTrees.lock(task.projectId, { exclusive: false });
}

/**
 * Before a task is deleted its children are detached, each with its `task.updated`
 * (docs/decisions.md#sub-tasks). Read under the task's row lock, which waits for the new children
 * being written (they lock their parent against deletion), so none is left out.
 */
export async function detachChildren(tx: TenantTx, taskId: string): Promise<DomainEvent[]> {
  const children = await tx.subtaskTrees.detachChildren(taskId);
  return children.map((child) => events.taskUpdated(toTaskRecord(child), { parentId: taskId }));
}
