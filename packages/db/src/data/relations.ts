import { Prisma, type TaskRelation } from '../generated/prisma/client';
import type { RelationType } from '../generated/prisma/enums';
import { newId } from '../ids';
import type { TenantConn } from './connection';
import { sqlListing, type SqlSortField } from './listing';

export type RelationSortField = 'createdAt';

const RELATION_SORT_KEYS: Record<RelationSortField, SqlSortField> = {
  createdAt: { column: '"createdAt"', type: 'timestamptz' },
};

/** The other task of a relation, as a relation's record shows it. */
export interface RelatedTask {
  id: string;
  title: string;
  status: string;
  projectId: string;
}

/** The relations between the tenant's tasks (docs/decisions.md#relations), stored as created: `fromTask <type> toTask`. */
export function relations({ conn, pool, scope }: TenantConn) {
  const ofTask = (taskId: string) =>
    Prisma.sql`("fromTaskId" = ${taskId} OR "toTaskId" = ${taskId}) AND "organizationId" = ${scope.organizationId} AND mode = ${scope.mode}::"Mode"`;
  return {
    /**
     * The relation, or null when the pair already holds it (either way round for relates_to: the
     * unique indexes of the migration decide, so two concurrent requests cannot both add it).
     */
    create: async (relation: { type: RelationType; fromTaskId: string; toTaskId: string }): Promise<TaskRelation | null> => {
      const rows = await conn.$queryRaw<TaskRelation[]>`
        INSERT INTO "TaskRelation" (id, "organizationId", mode, type, "fromTaskId", "toTaskId", "createdAt")
        VALUES (${newId('relation')}, ${scope.organizationId}, ${scope.mode}::"Mode", ${relation.type}::"RelationType", ${relation.fromTaskId}, ${relation.toTaskId}, now())
        ON CONFLICT DO NOTHING
        RETURNING *`;
      return rows[0] ?? null;
    },
    /**
     * The tenant's tasks of these ids, each locked against deletion (not against changes) until the
     * transaction ends, in id order so that concurrent callers never wait on each other in a circle.
     */
    lockTasks: async (ids: string[]): Promise<RelatedTask[]> =>
      conn.$queryRaw<RelatedTask[]>`
        SELECT id, title, status::text AS status, "projectId" FROM "Task"
        WHERE id = ANY(${ids}::text[]) AND "organizationId" = ${scope.organizationId} AND mode = ${scope.mode}::"Mode"
        ORDER BY id FOR KEY SHARE`,
    /** One of the task's relations, seen from either side. */
    findOf: (taskId: string, id: string) => conn.taskRelation.findFirst({ where: { id, ...scope, OR: [{ fromTaskId: taskId }, { toTaskId: taskId }] } }),
    /** Whether it was there to delete (a concurrent deletion may have come first). */
    remove: async (id: string) => (await conn.taskRelation.deleteMany({ where: { id, ...scope } })).count > 0,
    /** The task's relations in both directions. */
    listOf: (taskId: string) => sqlListing<RelationSortField, TaskRelation>(pool, 'TaskRelation', ofTask(taskId), RELATION_SORT_KEYS),
    /** The tasks at the other ends of relations, by id. */
    relatedTasks: async (ids: string[]): Promise<Map<string, RelatedTask>> => {
      const tasks = await conn.task.findMany({ where: { id: { in: ids }, ...scope }, select: { id: true, title: true, status: true, projectId: true } });
      return new Map(tasks.map((task) => [task.id, task]));
    },
  };
}
