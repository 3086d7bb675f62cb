import type { Comment } from '../generated/prisma/client';
import { newId } from '../ids';
import { lockScopedRow, type TenantConn } from './connection';
import type { PageWindow } from './listing';
import { prismaWindow } from './listing';

/** The tenant's comments, always reached through their task. */
export function comments({ conn, scope }: TenantConn) {
  return {
    find: (taskId: string, id: string) => conn.comment.findFirst({ where: { id, taskId, ...scope } }),
    lock: (id: string) => lockScopedRow(conn, 'Comment', scope, id),
    create: (comment: Pick<Comment, 'taskId' | 'authorId' | 'content' | 'mentions'>) =>
      conn.comment.create({ data: { id: newId('comment'), ...comment, ...scope } }),
    update: (id: string, data: Partial<Pick<Comment, 'content' | 'mentions'>>) => conn.comment.update({ where: { id, ...scope }, data }),
    remove: (id: string) => conn.comment.delete({ where: { id, ...scope } }),
    list: (taskId: string) => {
      const where = { taskId, ...scope };
      return {
        rows: (window: PageWindow<'createdAt'>) => conn.comment.findMany(prismaWindow(where, window)),
        total: () => conn.comment.count({ where }),
      };
    },
  };
}
