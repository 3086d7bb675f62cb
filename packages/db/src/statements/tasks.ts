import type { SqlPool } from '../client';
import type { Task } from '../generated/prisma/client';
import type { Mode } from '../generated/prisma/enums';

/** An outbox row: the event id, its tenant, type and payload. */
export interface OutboxInsert {
  id: string;
  organizationId: string;
  mode: Mode;
  type: string;
  data: object;
}

// The project and assignee checks, the task and its outbox row (its project the task's), in one
// statement: both rows commit or neither does. Prepared once per connection, so Postgres plans it once.
const INSERT_TASK_WITH_EVENT = {
  name: 'tasks.insert-with-event',
  text: `
    WITH project AS (
      SELECT 1 FROM "Project" WHERE id = $3 AND "organizationId" = $1 AND mode = $2::"Mode" AND NOT archived
    ), assignee AS (
      SELECT 1 WHERE $9::text IS NULL OR EXISTS (SELECT 1 FROM "Membership" WHERE "organizationId" = $1 AND "userId" = $9)
    ), task AS (
      INSERT INTO "Task" (id, "organizationId", mode, "projectId", title, description, status, priority,
                          "assigneeId", "creatorId", "dueDate", "customFields", "createdAt", "updatedAt")
      SELECT $4, $1, $2::"Mode", $3, $5, $6, $7::"TaskStatus", $8::"Priority", $9, $10, $11::timestamptz, $12::jsonb, $13::timestamptz, $14::timestamptz
      FROM project, assignee
      RETURNING id
    )
    INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "projectId", "createdAt")
    SELECT $15, $1, $2::"Mode", $16, $17::jsonb, $3, $13::timestamptz
    FROM task
    RETURNING "dispatchedAt" IS NULL AS awaited`,
};

/**
 * Inserts the task and its event's outbox row, provided the project is the task's tenant's and not
 * archived, and the assignee (if any) a member of its organization. `inserted` is false when nothing
 * was; `awaited` says whether a subscription awaits the event (else it was written dispatched).
 */
export async function insertTaskWithEvent(pool: SqlPool, task: Task, event: OutboxInsert): Promise<{ inserted: boolean; awaited: boolean }> {
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
    ],
  });
  return { inserted: rows.length === 1, awaited: rows[0]?.awaited === true };
}
