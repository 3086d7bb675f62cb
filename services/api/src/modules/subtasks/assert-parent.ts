import type { TenantTx } from '@worktrack/db';
import { invalid } from '../../http/errors';

/** docs/decisions.md#sub-tasks: a tree holds at most this many levels, its top task included. */
const MAX_LEVELS = 5;

/**
 * A task's new parent must be a task of its project that is not the task itself nor one of its
 * descendants, and the task's subtree must still fit within 5 levels beneath it (400, param
 * `parentId`, otherwise). The caller holds the project's tree lock (`lockTaskLinks`), so two
 * concurrent moves cannot together make the cycle or the depth that each alone would not.
 */
export async function assertParent(tx: TenantTx, task: { id: string | null; projectId: string }, parentId: string): Promise<void> {
  const ancestry = await tx.subtaskTrees.ancestry(parentId);
  if (ancestry[0]?.projectId !== task.projectId) throw invalid('parentId', 'parentId must be a task of the same project');
  if (task.id !== null && ancestry.some((ancestor) => ancestor.id === task.id)) {
    throw invalid('parentId', 'A task cannot be its own parent, nor the parent of one of its ancestors');
  }
  const height = task.id === null ? 1 : await tx.subtaskTrees.height(task.id);
  if (ancestry.length + height > MAX_LEVELS) throw invalid('parentId', `Sub-tasks nest at most ${MAX_LEVELS} levels deep`);
}
