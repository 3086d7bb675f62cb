-- CreateTable
CREATE TABLE "TaskCount" (
    "organizationId" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "projectId" TEXT NOT NULL,
    "status" "TaskStatus" NOT NULL,
    "priority" "Priority" NOT NULL,
    "assigneeId" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "TaskCount_pkey" PRIMARY KEY ("projectId","status","priority","assigneeId","shard")
);

-- CreateIndex
CREATE INDEX "TaskCount_organizationId_mode_idx" ON "TaskCount"("organizationId", "mode");

-- AddForeignKey
ALTER TABLE "TaskCount" ADD CONSTRAINT "TaskCount_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The triggers that keep "TaskCount". A task inserted, or changed in a counted column, adds to its
-- row in the writing connection's shard (its backend pid modulo 8) and takes from its old one, the
-- two in key order so that writers sharing a shard lock its rows in the same order: row-level
-- triggers, the cheapest for the API's one-task writes. Deletes are counted per statement, one
-- insert for a bulk delete, and not at all for a project's cascade: its counts go with it (above).
CREATE FUNCTION "TaskCount_add"(task "Task", delta bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "TaskCount" AS c ("organizationId", mode, "projectId", status, priority, "assigneeId", shard, count)
  VALUES (task."organizationId", task.mode, task."projectId", task.status, task.priority, coalesce(task."assigneeId", ''), pg_backend_pid() % 8, delta)
  ON CONFLICT ("projectId", status, priority, "assigneeId", shard) DO UPDATE SET count = c.count + excluded.count;
END
$$;

CREATE FUNCTION "TaskCount_written"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "TaskCount_add"(NEW, 1);
  ELSIF (OLD."projectId", OLD.status, OLD.priority, coalesce(OLD."assigneeId", '')) < (NEW."projectId", NEW.status, NEW.priority, coalesce(NEW."assigneeId", '')) THEN
    PERFORM "TaskCount_add"(OLD, -1);
    PERFORM "TaskCount_add"(NEW, 1);
  ELSE
    PERFORM "TaskCount_add"(NEW, 1);
    PERFORM "TaskCount_add"(OLD, -1);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION "TaskCount_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "TaskCount" AS c ("organizationId", mode, "projectId", status, priority, "assigneeId", shard, count)
  SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", ''), pg_backend_pid() % 8, -count(*)
  FROM removed
  WHERE EXISTS (SELECT 1 FROM "Project" p WHERE p.id = removed."projectId")
  GROUP BY "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '')
  ORDER BY "projectId", status, priority, coalesce("assigneeId", '')
  ON CONFLICT ("projectId", status, priority, "assigneeId", shard) DO UPDATE SET count = c.count + excluded.count;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Task_counted_insert" AFTER INSERT ON "Task"
  FOR EACH ROW EXECUTE FUNCTION "TaskCount_written"();
CREATE TRIGGER "Task_counted_update" AFTER UPDATE OF "projectId", status, priority, "assigneeId" ON "Task"
  FOR EACH ROW
  WHEN ((OLD."projectId", OLD.status, OLD.priority, OLD."assigneeId") IS DISTINCT FROM (NEW."projectId", NEW.status, NEW.priority, NEW."assigneeId"))
  EXECUTE FUNCTION "TaskCount_written"();
CREATE TRIGGER "Task_counted_delete" AFTER DELETE ON "Task"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "TaskCount_deleted"();

-- The tasks already there, counted once.
INSERT INTO "TaskCount" ("organizationId", mode, "projectId", status, priority, "assigneeId", shard, count)
SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", ''), 0, count(*)
FROM "Task"
GROUP BY "organizationId", mode, "projectId", status, priority, "assigneeId";
