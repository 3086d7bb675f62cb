// The HTTP baseline: bare Express 5 + `pg` doing the same SQL work as POST and GET /v1/tasks, in
// a process of its own as the API runs. No authentication, quota,
// validation or events: what is left is the floor the stack sets. The tenant comes from the environment.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Pool } from 'pg';

const organizationId = process.env.BENCH_ORG_ID!;
const creatorId = process.env.BENCH_USER_ID!;
const mode = 'live';
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

interface TaskRow {
  id: string;
  title: string;
  description: string | null;
  status: string;
  priority: string;
  projectId: string;
  assigneeId: string | null;
  creatorId: string;
  dueDate: Date | null;
  customFields: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

const toRecord = (t: TaskRow) => ({
  ...t,
  dueDate: t.dueDate?.toISOString() ?? null,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

// The project check, the task and its outbox row in one statement, as create-task.ts does. The row
// is born dispatched, so that worktrack's worker, sweeping the same database, leaves it alone.
const INSERT_TASK = `
  WITH project AS (
    SELECT 1 FROM "Project" WHERE id = $3 AND "organizationId" = $1 AND mode = $2::"Mode" AND NOT archived
  ), task AS (
    INSERT INTO "Task" (id, "organizationId", mode, "projectId", title, description, status, priority,
                        "assigneeId", "creatorId", "dueDate", "customFields", "createdAt", "updatedAt")
    SELECT $4, $1, $2::"Mode", $3, $5, $6, $7::"TaskStatus", $8::"Priority", NULL, $9, NULL, '{}'::jsonb, $10, $10
    FROM project
    RETURNING id
  )
  INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "createdAt", "dispatchedAt")
  SELECT $11, $1, $2::"Mode", 'task.created', $12::jsonb, $10, $10 FROM task`;

const TASK_COLUMNS = `id, title, description, status::text, priority::text, "projectId", "assigneeId", "creatorId", "dueDate", "customFields", "createdAt", "updatedAt"`;

const app = express();
app.use(express.json());

app.post('/tasks', async (req, res) => {
  const body = req.body as { title: string; projectId: string; description?: string; status?: string; priority?: string };
  const now = new Date();
  const task = toRecord({
    id: `tsk_${randomUUID()}`,
    title: body.title,
    description: body.description ?? null,
    status: body.status ?? 'todo',
    priority: body.priority ?? 'medium',
    projectId: body.projectId,
    assigneeId: null,
    creatorId,
    dueDate: null,
    customFields: {},
    createdAt: now,
    updatedAt: now,
  });
  const { rowCount } = await pool.query({ name: 'insert-task', text: INSERT_TASK }, [
    organizationId,
    mode,
    task.projectId,
    task.id,
    task.title,
    task.description,
    task.status,
    task.priority,
    creatorId,
    now,
    `evt_${randomUUID()}`,
    JSON.stringify(task),
  ]);
  if (rowCount === 0) res.status(400).json({ error: 'no such project' });
  else res.status(201).json(task);
});

app.get('/tasks', async (req, res) => {
  const where = `WHERE "organizationId" = $1 AND mode = $2::"Mode" AND "projectId" = $3`;
  const params = [organizationId, mode, String(req.query.projectId)];
  const [page, count] = await Promise.all([
    // Unprepared: a prepared count gets a generic plan after five runs, and here a worse one.
    pool.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM "Task" ${where} ORDER BY "createdAt" DESC, id DESC LIMIT 50 OFFSET 0`, params),
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM "Task" ${where}`, params),
  ]);
  const total = count.rows[0]!.total;
  res.json({ data: page.rows.map(toRecord), pagination: { total, limit: 50, offset: 0, hasMore: page.rows.length < total } });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
