import type { TenantTx } from '@worktrack/db';
import { assertLabels } from '../labels/assert-labels';
import { assertParent } from './assert-parent';

interface LinkChange {
  labelIds?: string[];
  parentId?: string | null;
}

/**
 * The locks a write of a task's labels or parent needs, taken before the task's own row lock (so
 * every writer takes them in one order: the project's trees, the label vocabulary, then rows): the
 * tree lock for a parent, which serializes the project's moves (cycles, depth) and its task
 * deletions (detached children), and the vocabulary's shared lock for labels, which keeps
 * them from being deleted meanwhile. The task is new (its project given) or named by id (its
 * project, which never changes, read first; none for an unknown task, which its row lock answers).
 */
export async function lockTaskLinks(tx: TenantTx, task: { projectId: string } | { taskId: string }, change: LinkChange): Promise<void> {
  if (change.parentId !== undefined) {
    const projectId = 'projectId' in task ? task.projectId : (await tx.tasks.find(task.taskId))?.projectId;
    // A new task has no subtree to move: it only waits out the moves.
    if (projectId) await tx.subtaskTrees.lock(projectId, { exclusive: 'taskId' in task });
  }
  if (change.labelIds) await tx.labels.lockVocabulary({ exclusive: false });
}

/**
 * Checks a task's new labels and parent, if the write changes them: the rules of
 * docs/decisions.md#labels and docs/decisions.md#sub-tasks, under the locks of `lockTaskLinks`.
 */
export async function assertTaskLinks(
  tx: TenantTx,
  task: { id: string | null; projectId: string; parentId: string | null },
  change: LinkChange,
): Promise<void> {
  if (change.labelIds) await assertLabels(tx, change.labelIds);
  if (change.parentId && change.parentId !== task.parentId) await assertParent(tx, task, change.parentId);
}
