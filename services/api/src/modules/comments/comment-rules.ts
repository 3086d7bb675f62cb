import { scoped, type Comment, type Scope, type Tx } from '@worktrack/db';
import { forbidden, notFound } from '../../http/errors';
import type { Tenant } from '../../http/auth';

/** The task must be the tenant's; a foreign or unknown task is 404 for its comments too. */
export async function assertTask(tx: Tx, scope: Scope, taskId: string): Promise<void> {
  const task = await tx.task.findFirst({ where: scoped(scope, { id: taskId }), select: { id: true } });
  if (!task) throw notFound('taskId', 'No such task');
}

export async function findComment(tx: Tx, scope: Scope, taskId: string, commentId: string): Promise<Comment> {
  const comment = await tx.comment.findFirst({ where: scoped(scope, { id: commentId, taskId }) });
  if (!comment) throw notFound('commentId', 'No such comment');
  return comment;
}

/** Only the author or an admin edits or deletes a comment. */
export function assertMayChange(tenant: Tenant, comment: Comment): void {
  if (comment.authorId !== tenant.userId && tenant.role !== 'admin') {
    throw forbidden('Only the author or an admin may change this comment');
  }
}
