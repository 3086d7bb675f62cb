-- AlterTable
ALTER TABLE "OutboxEvent" ADD COLUMN     "actor" JSONB NOT NULL DEFAULT '{"type": "system"}',
ADD COLUMN     "txid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint;

-- CreateTable
CREATE TABLE "TaskActivity" (
    "taskId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "type" TEXT NOT NULL,
    "actor" JSONB NOT NULL,
    "changes" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "TaskActivity_pkey" PRIMARY KEY ("taskId","id")
);

-- CreateIndex
CREATE INDEX "TaskActivity_taskId_createdAt_id_idx" ON "TaskActivity"("taskId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "OutboxEvent_organizationId_mode_txid_id_idx" ON "OutboxEvent"("organizationId", "mode", "txid", "id");

-- CreateIndex
CREATE INDEX "OutboxEvent_txid_id_idx" ON "OutboxEvent"("txid", "id");

-- AddForeignKey
ALTER TABLE "TaskActivity" ADD CONSTRAINT "TaskActivity_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A task's history (docs/decisions.md#history-actors-and-live-events), written from the events of the
-- statement that recorded them, whatever wrote them (a transaction's batch or the one-statement task
-- insert), so that every event type about a task is kept without a line of its own: task events name
-- the task by `data.id`, the others (comments, relations) by `data.taskId`. An update's `changes` are
-- its `previousAttributes` paired with the new values, whichever fields it has. The join keeps events
-- whose task no longer exists out (`task.deleted`, a task removed in the same transaction).
CREATE FUNCTION "OutboxEvent_task_activity"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "TaskActivity" ("taskId", id, "organizationId", mode, type, actor, changes, "createdAt")
  SELECT t.id, e.id, e."organizationId", e.mode, e.type, e.actor,
         (SELECT jsonb_object_agg(field, jsonb_build_object('from', e.data -> 'previousAttributes' -> field, 'to', e.data -> field))
          FROM jsonb_object_keys(CASE WHEN jsonb_typeof(e.data -> 'previousAttributes') = 'object' THEN e.data -> 'previousAttributes' ELSE '{}' END) AS field),
         e."createdAt"
  FROM new_events e
  JOIN "Task" t ON t.id = (CASE WHEN e.type LIKE 'task.%' THEN e.data ->> 'id' ELSE e.data ->> 'taskId' END)
    AND t."organizationId" = e."organizationId" AND t.mode = e.mode
  WHERE e.type <> 'task.deleted'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER "OutboxEvent_task_activity" AFTER INSERT ON "OutboxEvent"
  REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION "OutboxEvent_task_activity"();

-- The feed's horizon (ARCHITECTURE.md#the-event-feed): every transaction id below it had ended when the
-- calling statement took its snapshot, so the events it sees below it are all it will ever see there.
-- That is the snapshot's xmin, except that transactions of the server's other databases, which cannot
-- write this database's outbox, are passed over, so a long one there (a DROP DATABASE, another
-- service's batch) does not hold the feed back. A running transaction whose database is not known
-- for certain (it ended meanwhile, or its row is not readable) counts as this database's. STABLE, so
-- it reads the caller's snapshot.
CREATE FUNCTION "OutboxEvent_feed_horizon"() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT min(running::text::bigint)
     FROM pg_snapshot_xip(pg_current_snapshot()) AS running
     WHERE NOT EXISTS (
       SELECT 1 FROM pg_stat_activity a
       WHERE a.backend_xid = xid(running) AND a.datname IS DISTINCT FROM current_database())),
    pg_snapshot_xmax(pg_current_snapshot())::text::bigint)
$$;
