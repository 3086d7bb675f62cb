import { queryOnPool, Prisma, type Scope, type SqlPool } from '@worktrack/db';
import { taskConditions } from './task-filters';
import type { TaskFilters } from './task-schemas';

type CountFilters = Pick<TaskFilters, 'projectId' | 'status' | 'priority' | 'assigneeId'>;

/**
 * The filters the maintained counts (`TaskCount`, kept by triggers on `Task`) can answer: those that
 * name a project, statuses, priorities and assignees. Any other filter needs the tasks themselves.
 */
function countedFilters(filters: TaskFilters): CountFilters | undefined {
  const { projectId, status, priority, assigneeId, dueBefore, dueAfter, updatedSince, createdSince, q } = filters;
  if (dueBefore ?? dueAfter ?? updatedSince ?? createdSince ?? q) return undefined;
  return { projectId, status, priority, assigneeId };
}

/**
 * The exact number of the tenant's tasks that pass the filters: a sum over the few count rows that
 * match when the filters allow it (the same statement that wrote a task wrote its count), else
 * `countAll`, which counts the tasks. The count rows are read with the tasks' own conditions, their
 * unassigned `''` shown as null, so the filters mean the same over both.
 */
export async function countTasks(pool: SqlPool, scope: Scope, filters: TaskFilters, countAll: () => Promise<number>): Promise<number> {
  const counted = countedFilters(filters);
  if (!counted) return countAll();
  const sum = Prisma.sql`
    SELECT coalesce(sum(count), 0)::int AS total
    FROM (SELECT "organizationId", mode, "projectId", status, priority, NULLIF("assigneeId", '') AS "assigneeId", count FROM "TaskCount") AS counts
    WHERE ${taskConditions(scope, counted)}`;
  const [row] = await queryOnPool<{ total: number }>(pool, sum);
  return row!.total;
}
