import { Prisma, type Db, type Scope } from '@worktrack/db';
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
 * match when the filters allow it (the same transaction that wrote a task wrote its count), else
 * `countAll`, which counts the tasks.
 */
export async function countTasks(db: Db, scope: Scope, filters: TaskFilters, countAll: () => Promise<number>): Promise<number> {
  const counted = countedFilters(filters);
  if (!counted) return countAll();
  const [{ total }] = await db.$queryRaw<[{ total: number }]>`
    SELECT coalesce(sum(count), 0)::int AS total FROM "TaskCount" WHERE ${countConditions(scope, counted)}`;
  return total;
}

function countConditions(scope: Scope, filters: CountFilters): Prisma.Sql {
  const conditions = [Prisma.sql`"organizationId" = ${scope.organizationId}`, Prisma.sql`mode = ${scope.mode}::"Mode"`];
  if (filters.projectId) conditions.push(Prisma.sql`"projectId" = ${filters.projectId}`);
  if (filters.status) conditions.push(Prisma.sql`status = ANY(${filters.status}::"TaskStatus"[])`);
  if (filters.priority) conditions.push(Prisma.sql`priority = ANY(${filters.priority}::"Priority"[])`);
  // The counts file unassigned tasks under ''.
  if (filters.assigneeId) conditions.push(Prisma.sql`"assigneeId" = ANY(${filters.assigneeId.map((id) => (id === 'none' ? '' : id))}::text[])`);
  return Prisma.join(conditions, ' AND ');
}
