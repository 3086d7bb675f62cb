import { Prisma, type Scope } from '@worktrack/db';
import type { PageParams } from '../../http/pagination';
import type { TaskFilters } from './task-schemas';
import { matchesSearch } from './task-search';

/** The tenant's tasks that pass every filter given (docs/decisions.md#task-filters: filters combine). */
export function taskConditions(scope: Scope, filters: Omit<TaskFilters, keyof PageParams>): Prisma.Sql {
  const conditions = [Prisma.sql`"organizationId" = ${scope.organizationId}`, Prisma.sql`mode = ${scope.mode}::"Mode"`];
  if (filters.projectId) conditions.push(Prisma.sql`"projectId" = ${filters.projectId}`);
  if (filters.status) conditions.push(Prisma.sql`status = ANY(${filters.status}::"TaskStatus"[])`);
  if (filters.priority) conditions.push(Prisma.sql`priority = ANY(${filters.priority}::"Priority"[])`);
  if (filters.assigneeId) conditions.push(assignedTo(filters.assigneeId));
  if (filters.dueBefore) conditions.push(Prisma.sql`"dueDate" < ${filters.dueBefore}::timestamptz`);
  if (filters.dueAfter) conditions.push(Prisma.sql`"dueDate" > ${filters.dueAfter}::timestamptz`);
  if (filters.updatedSince) conditions.push(Prisma.sql`"updatedAt" >= ${filters.updatedSince}::timestamptz`);
  if (filters.createdSince) conditions.push(Prisma.sql`"createdAt" >= ${filters.createdSince}::timestamptz`);
  if (filters.q) conditions.push(matchesSearch(filters.q));
  return Prisma.join(conditions, ' AND ');
}

/** `assigneeId=a,b,none`: assigned to one of the members, or (`none`) to nobody. */
function assignedTo(ids: string[]): Prisma.Sql {
  const members = ids.filter((id) => id !== 'none');
  const assigned = Prisma.sql`"assigneeId" = ANY(${members}::text[])`;
  if (members.length === ids.length) return assigned;
  return members.length > 0 ? Prisma.sql`(${assigned} OR "assigneeId" IS NULL)` : Prisma.sql`"assigneeId" IS NULL`;
}
