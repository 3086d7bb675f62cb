import { currentTraceparent } from '@worktrack/telemetry';
import { Prisma, type Task } from '../generated/prisma/client';
import type { Mode, Priority, TaskStatus } from '../generated/prisma/enums';
import { queryOnPool, type SqlPool } from '../client';
import type { Scope } from '../scope';
import { newId } from '../ids';
import type { EventToRecord } from './events';
import { lockScopedRow, type TenantConn } from './connection';
import { caseInsensitive, sqlListing, type PageWindow, type SqlSortField } from './listing';
import { attachSubtasks, COUNT_ROWS, withSubtasks, type TaskRow } from './subtasks';

export type TaskSortField = 'createdAt' | 'updatedAt' | 'dueDate' | 'priority' | 'title' | 'status';

/**
 * The SQL of GET /tasks's orders. Each field's key, followed by the id, is the tail of an index per
 * project and one across the tenant (schema.prisma; the expressions in migration
 * 20261122152729_list_orders, which must stay identical to these), so no order sorts the project.
 */
export const TASK_SORT_KEYS: Record<TaskSortField, SqlSortField> = {
  createdAt: { column: '"createdAt"', type: 'timestamptz' },
  updatedAt: { column: '"updatedAt"', type: 'timestamptz' },
  // Tasks without a due date come last in either direction.
  dueDate: {
    column: '"dueDate"',
    type: 'timestamptz',
    key: (operand, descending) => Prisma.sql`COALESCE(${operand}, ${Prisma.raw(descending ? "'-infinity'" : "'infinity'")}::timestamptz)`,
  },
  // Enums sort in their declared order: low < medium < high, todo < in_progress < done.
  priority: { column: 'priority', type: '"Priority"' },
  status: { column: 'status', type: '"TaskStatus"' },
  title: { column: 'title', type: 'text', key: caseInsensitive },
};

/** docs/decisions.md#task-filters: filters combine; a list filter matches any of its values. */
export interface TaskFilter {
  projectId?: string;
  status?: TaskStatus[];
  priority?: Priority[];
  /** Member ids; `none` for unassigned tasks. */
  assigneeId?: string[];
  dueBefore?: string;
  dueAfter?: string;
  updatedSince?: string;
  createdSince?: string;
  q?: string;
  /** Tasks carrying any of these labels. */
  labelId?: string[];
  /** The children of this task. */
  parentId?: string;
  /** Only tasks without a parent. */
  topLevel?: boolean;
}

/** The tenant's tasks that pass every filter given. */
export function taskConditions(scope: Scope, filters: TaskFilter): Prisma.Sql {
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
  if (filters.labelId) conditions.push(Prisma.sql`"labelIds" && ${filters.labelId}::text[]`);
  if (filters.parentId) conditions.push(Prisma.sql`"parentId" = ${filters.parentId}`);
  if (filters.topLevel) conditions.push(Prisma.sql`"parentId" IS NULL`);
  return Prisma.join(conditions, ' AND ');
}

/** `assigneeId=a,b,none`: assigned to one of the members, or (`none`) to nobody. */
function assignedTo(ids: string[]): Prisma.Sql {
  const members = ids.filter((id) => id !== 'none');
  const assigned = Prisma.sql`"assigneeId" = ANY(${members}::text[])`;
  if (members.length === ids.length) return assigned;
  return members.length > 0 ? Prisma.sql`(${assigned} OR "assigneeId" IS NULL)` : Prisma.sql`"assigneeId" IS NULL`;
}

/**
 * `q`: every word must begin a word of the title or the description, whatever its case and accents.
 * The `worktrack_search` configuration strips accents (unaccent) and lower-cases; this document is
 * the expression of the GIN index "Task_search_idx" (keep them identical).
 */
const searchDocument = Prisma.sql`to_tsvector('worktrack_search'::regconfig, title || ' ' || COALESCE(description, ''))`;

/**
 * Each word quoted as one tsquery operand with a prefix match: to_tsquery then reads it through the
 * same configuration (so "Réunion," matches "reunion") and nothing in it acts as an operator.
 */
const prefixQuery = (q: string) =>
  q
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}':*`)
    .join(' & ');

const matchesSearch = (q: string) => Prisma.sql`${searchDocument} @@ to_tsquery('worktrack_search', ${prefixQuery(q)})`;

/**
 * The sum of maintained counts (kept by triggers on `Task`) that is the filters' total, when they can
 * answer it: `TaskCount` for the project, status, priority, assignee and `topLevel`; `TaskLabelCount`
 * for one label, alone or with the project (a task carrying two of several labels would count twice).
 * The count rows are read with the tasks' own conditions, their unassigned `''` shown as null and
 * their top-level tasks' parent as null, so the filters mean the same over both.
 */
function countedTotal(scope: Scope, filters: TaskFilter): Prisma.Sql | undefined {
  const { projectId, status, priority, assigneeId, dueBefore, dueAfter, updatedSince, createdSince, q, labelId, parentId, topLevel } = filters;
  if (dueBefore ?? dueAfter ?? updatedSince ?? createdSince ?? q ?? parentId) return undefined;
  if (labelId) {
    if (labelId.length > 1 || status || priority || assigneeId || topLevel) return undefined;
    return Prisma.sql`
      SELECT coalesce(sum(count), 0)::int AS total FROM "TaskLabelCount"
      WHERE ${taskConditions(scope, { projectId })} AND "labelId" = ${labelId[0]}`;
  }
  return Prisma.sql`
    SELECT coalesce(sum(count), 0)::int AS total
    FROM (SELECT "organizationId", mode, "projectId", status, priority, NULLIF("assigneeId", '') AS "assigneeId",
                 CASE WHEN "topLevel" THEN NULL ELSE '' END AS "parentId", count FROM "TaskCount") AS counts
    WHERE ${taskConditions(scope, { projectId, status, priority, assigneeId, topLevel })}`;
}

/** An outbox row: the event id, its tenant, type and payload. */
export interface OutboxInsert {
  id: string;
  organizationId: string;
  mode: Mode;
  type: string;
  data: object;
  actor: object;
}

// The task and its outbox row (its project the task's) in one statement: both rows commit or neither
// does. Prepared once per connection, so Postgres plans it once. The rules of a new task (its project
// open, its assignee a member) are the API's (modules/write-rules.ts), checked before.
const INSERT_TASK_WITH_EVENT = {
  name: 'tasks.insert-with-event',
  text: `
    WITH task AS (
      INSERT INTO "Task" (id, "organizationId", mode, "projectId", title, description, status, priority,
                          "assigneeId", "creatorId", "dueDate", "customFields", "createdAt", "updatedAt")
      VALUES ($4, $1, $2::"Mode", $3, $5, $6, $7::"TaskStatus", $8::"Priority", $9, $10, $11::timestamptz, $12::jsonb, $13::timestamptz, $14::timestamptz)
      RETURNING id
    )
    INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "projectId", "createdAt", traceparent, actor)
    SELECT $15, $1, $2::"Mode", $16, $17::jsonb, $3, $13::timestamptz, $18, $19::jsonb
    FROM task
    RETURNING "dispatchedAt" IS NULL AS awaited`,
};

/**
 * Inserts the task and its event's outbox row; whether a subscription awaits the event (else it was
 * written dispatched).
 */
export async function insertTaskWithEvent(pool: SqlPool, task: Task, event: OutboxInsert): Promise<{ awaited: boolean }> {
  const { rows } = await pool.query<{ awaited: boolean }>({
    ...INSERT_TASK_WITH_EVENT,
    values: [
      task.organizationId,
      task.mode,
      task.projectId,
      task.id,
      task.title,
      task.description,
      task.status,
      task.priority,
      task.assigneeId,
      task.creatorId,
      task.dueDate,
      JSON.stringify(task.customFields),
      task.createdAt,
      task.updatedAt,
      event.id,
      event.type,
      JSON.stringify(event.data),
      currentTraceparent(),
      JSON.stringify(event.actor),
    ],
  });
  return rows[0]!;
}

/** A task as the API builds it: the tenant adds its scope. */
export type NewTask = Omit<Task, 'organizationId' | 'mode'>;

/** The tenant's tasks. */
export function tasks({ conn, pool, scope, actor }: TenantConn) {
  return {
    find: async (id: string): Promise<TaskRow | null> => {
      const task = await conn.task.findFirst({ where: { id, ...scope }, include: COUNT_ROWS });
      return task && withSubtasks(task);
    },
    lock: (id: string) => lockScopedRow(conn, 'Task', scope, id),
    update: async (id: string, data: Prisma.TaskUncheckedUpdateInput): Promise<TaskRow> =>
      withSubtasks(await conn.task.update({ where: { id, ...scope }, data, include: COUNT_ROWS })),
    /** A task inserted in the transaction (the checks are the caller's); see `insertWithEvent` for the usual one. */
    create: async (task: Omit<Task, 'organizationId' | 'mode'>): Promise<TaskRow> =>
      withSubtasks(await conn.task.create({ data: { ...task, customFields: task.customFields ?? {}, ...scope }, include: COUNT_ROWS })),
    remove: (id: string) => conn.task.delete({ where: { id, ...scope } }),

    /**
     * A task and its event's outbox row in one prepared statement on the pool, outside any
     * transaction (the busiest write); the event ids a subscription awaits.
     */
    insertWithEvent: async (task: NewTask, event: EventToRecord) => {
      const eventId = newId('event');
      const { awaited } = await insertTaskWithEvent(pool, { ...task, ...scope }, { id: eventId, ...scope, ...event, actor });
      return { awaitedEventIds: awaited ? [eventId] : [] };
    },
    /**
     * Tasks in one statement, within a transaction whose events the caller records (a bulk
     * request's), the tasks given as arrays: through Prisma's createMany, compiling the rows took
     * most of a bulk request's CPU.
     */
    insertMany: async (tasks: NewTask[]): Promise<void> => {
      if (tasks.length === 0) return;
      const column = <T>(value: (task: NewTask) => T) => tasks.map(value);
      await conn.$executeRaw`
        INSERT INTO "Task" (id, "organizationId", mode, "projectId", title, description, status, priority, "assigneeId", "creatorId",
                            "dueDate", "customFields", "labelIds", "parentId", "createdAt", "updatedAt")
        SELECT t.id, ${scope.organizationId}, ${scope.mode}::"Mode", t."projectId", t.title, t.description, t.status::"TaskStatus", t.priority::"Priority",
               t."assigneeId", t."creatorId", t."dueDate"::timestamptz, t."customFields"::jsonb,
               ARRAY(SELECT jsonb_array_elements_text(t."labelIds"::jsonb)), t."parentId", t."createdAt"::timestamptz, t."updatedAt"::timestamptz
        FROM unnest(${column((t) => t.id)}::text[], ${column((t) => t.projectId)}::text[], ${column((t) => t.title)}::text[],
                    ${column((t) => t.description)}::text[], ${column((t) => t.status)}::text[], ${column((t) => t.priority)}::text[],
                    ${column((t) => t.assigneeId)}::text[], ${column((t) => t.creatorId)}::text[], ${column((t) => t.dueDate?.toISOString() ?? null)}::text[],
                    ${column((t) => JSON.stringify(t.customFields ?? {}))}::text[], ${column((t) => JSON.stringify(t.labelIds))}::text[],
                    ${column((t) => t.parentId)}::text[], ${column((t) => t.createdAt.toISOString())}::text[], ${column((t) => t.updatedAt.toISOString())}::text[])
             AS t(id, "projectId", title, description, status, priority, "assigneeId", "creatorId", "dueDate", "customFields", "labelIds", "parentId", "createdAt", "updatedAt")`;
    },

    /**
     * The tasks that pass the filters, a page at a time, and their exact number: a sum over the few
     * count rows that match when the filters allow it (the same statement that wrote a task wrote
     * its count; countedTotal), else a count of the tasks.
     */
    list: (filters: TaskFilter) => {
      const listing = sqlListing<TaskSortField, Task>(pool, 'Task', taskConditions(scope, filters), TASK_SORT_KEYS);
      const counted = countedTotal(scope, filters);
      return {
        rows: async (window: PageWindow<TaskSortField>) => attachSubtasks(pool, await listing.rows(window)),
        total: counted ? async () => (await queryOnPool<{ total: number }>(pool, counted))[0]!.total : listing.total,
      };
    },
  };
}
