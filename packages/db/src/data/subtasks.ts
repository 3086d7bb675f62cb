import type { Task } from '../generated/prisma/client';
import { queryOnPool, type SqlPool } from '../client';
import { Prisma } from '../generated/prisma/client';
import { advisoryLock, type TenantConn } from './connection';

/** A task's direct children, and how many of them are done (docs/decisions.md#sub-tasks). */
export interface Subtasks {
  total: number;
  done: number;
}

/** A task as every read returns it: its row and its children's counts. */
export type TaskRow = Task & { subtasks: Subtasks };

/** Deeper than this the ancestry walks stop: the rules keep trees at 5 levels, so this is only a guard. */
const WALK_LIMIT = 16;

type CountRows = { subtaskCounts: { total: bigint; done: bigint }[] };

/** Prisma's include of a task's count rows, summed into `subtasks`. */
export const COUNT_ROWS = { subtaskCounts: { select: { total: true, done: true } } } as const;

export function withSubtasks<T extends CountRows>({ subtaskCounts, ...task }: T): Omit<T, 'subtaskCounts'> & { subtasks: Subtasks } {
  const subtasks = { total: 0, done: 0 };
  for (const shard of subtaskCounts) {
    subtasks.total += Number(shard.total);
    subtasks.done += Number(shard.done);
  }
  return { ...task, subtasks };
}

/** The page's tasks with their counts: one indexed read of their count rows. */
export async function attachSubtasks(pool: SqlPool, tasks: Task[]): Promise<TaskRow[]> {
  if (tasks.length === 0) return [];
  const sums = await queryOnPool<{ parentId: string; total: number; done: number }>(
    pool,
    Prisma.sql`SELECT "parentId", sum(total)::int AS total, sum(done)::int AS done FROM "SubtaskCount" WHERE "parentId" = ANY(${tasks.map((task) => task.id)}::text[]) GROUP BY "parentId"`,
  );
  const byParent = new Map(sums.map(({ parentId, total, done }) => [parentId, { total, done }]));
  return tasks.map((task) => ({ ...task, subtasks: byParent.get(task.id) ?? { total: 0, done: 0 } }));
}

/** The shape of a project's task trees, read under the lock that keeps them trees (see `lock`). */
export function subtaskTrees({ conn, scope }: TenantConn) {
  return {
    /**
     * A project's trees, locked for the rest of the transaction: a move (`exclusive`) alone, since two
     * concurrent moves could each pass the cycle and depth checks alone and make a cycle, or a sixth
     * level, together; a new child or a deletion shared, since they only wait out the moves (a move
     * must see the child that deepens a subtree; a deletion detaches every child).
     */
    lock: async (projectId: string, { exclusive }: { exclusive: boolean }) => {
      const key = `task-tree:${projectId}`;
      if (exclusive) await advisoryLock(conn, key);
      else await conn.$executeRaw`SELECT pg_advisory_xact_lock_shared(hashtext(${key}))`;
    },

    /**
     * A would-be parent (locked against deletion until the transaction ends) and its ancestors,
     * itself first; empty when it is not one of the tenant's tasks.
     */
    ancestry: async (parentId: string): Promise<{ id: string; projectId: string }[]> => {
      const parent = await conn.$queryRaw<{ id: string }[]>`
        SELECT id FROM "Task" WHERE id = ${parentId} AND "organizationId" = ${scope.organizationId} AND mode = ${scope.mode}::"Mode" FOR KEY SHARE`;
      if (parent.length === 0) return [];
      return conn.$queryRaw<{ id: string; projectId: string }[]>`
        WITH RECURSIVE chain (id, "projectId", "parentId", depth) AS (
          SELECT id, "projectId", "parentId", 1 FROM "Task" WHERE id = ${parentId}
          UNION ALL
          SELECT t.id, t."projectId", t."parentId", chain.depth + 1 FROM "Task" t JOIN chain ON t.id = chain."parentId" WHERE chain.depth < ${WALK_LIMIT}
        )
        SELECT id, "projectId" FROM chain ORDER BY depth`;
    },

    /** The levels of a task's subtree, itself included (1 for a task without children). */
    height: async (taskId: string): Promise<number> => {
      const [row] = await conn.$queryRaw<{ height: number }[]>`
        WITH RECURSIVE below (id, level) AS (
          SELECT id, 1 FROM "Task" WHERE id = ${taskId}
          UNION ALL
          SELECT t.id, below.level + 1 FROM "Task" t JOIN below ON t."parentId" = below.id WHERE below.level < ${WALK_LIMIT}
        )
        SELECT max(level)::int AS height FROM below`;
      return row?.height ?? 1;
    },

    /** Detaches a task's children and returns them as they are now, with their ids. */
    detachChildren: async (parentId: string): Promise<TaskRow[]> => {
      const where = { parentId, ...scope };
      const ids = (await conn.task.findMany({ where, select: { id: true } })).map((child) => child.id);
      if (ids.length === 0) return [];
      await conn.task.updateMany({ where: { id: { in: ids }, ...scope }, data: { parentId: null } });
      return (await conn.task.findMany({ where: { id: { in: ids }, ...scope }, include: COUNT_ROWS })).map(withSubtasks);
    },
  };
}
