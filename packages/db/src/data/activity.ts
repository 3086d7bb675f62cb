import type { TenantConn } from './connection';
import { prismaWindow, type PageWindow } from './listing';

/**
 * A task's history, oldest first. Its rows are written by a trigger from the events about the task
 * (migration 20261127040000_history_and_feed) and deleted with the task.
 */
export function taskActivity({ conn, scope }: TenantConn) {
  return {
    list: (taskId: string) => {
      const where = { taskId, ...scope };
      return {
        rows: (window: PageWindow<'createdAt'>) => conn.taskActivity.findMany(prismaWindow(where, window)),
        total: () => conn.taskActivity.count({ where }),
      };
    },
  };
}
