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

-- The triggers that keep "TaskCount": after each statement that inserts, deletes or moves tasks
-- between counts, the net change per project, status, priority and assignee is added to the writing
-- connection's shard (its backend pid modulo 8), in key order, so that writers sharing a shard lock
-- its rows in the same order. Per statement, not per row: a row that one transaction updates again
-- and again leaves a version each time that every later update walks, which made a bulk insert's
-- cost grow with its square. Tasks deleted with their project change nothing: the project's counts
-- go with it (the cascade above).
CREATE FUNCTION "TaskCount_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "TaskCount" AS c ("organizationId", mode, "projectId", status, priority, "assigneeId", shard, count)
    SELECT "organizationId", mode, "projectId", status, priority, "assigneeId", pg_backend_pid() % 8, sum(delta)
    FROM (SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '') AS "assigneeId", 1 AS delta FROM added) AS change
    GROUP BY "organizationId", mode, "projectId", status, priority, "assigneeId"
    HAVING sum(delta) <> 0
    ORDER BY "projectId", status, priority, "assigneeId"
    ON CONFLICT ("projectId", status, priority, "assigneeId", shard) DO UPDATE SET count = c.count + excluded.count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "TaskCount" AS c ("organizationId", mode, "projectId", status, priority, "assigneeId", shard, count)
    SELECT "organizationId", mode, "projectId", status, priority, "assigneeId", pg_backend_pid() % 8, sum(delta)
    FROM (SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '') AS "assigneeId", -1 AS delta FROM removed WHERE EXISTS (SELECT 1 FROM "Project" p WHERE p.id = removed."projectId")) AS change
    GROUP BY "organizationId", mode, "projectId", status, priority, "assigneeId"
    HAVING sum(delta) <> 0
    ORDER BY "projectId", status, priority, "assigneeId"
    ON CONFLICT ("projectId", status, priority, "assigneeId", shard) DO UPDATE SET count = c.count + excluded.count;
  ELSE
    INSERT INTO "TaskCount" AS c ("organizationId", mode, "projectId", status, priority, "assigneeId", shard, count)
    SELECT "organizationId", mode, "projectId", status, priority, "assigneeId", pg_backend_pid() % 8, sum(delta)
    FROM (SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '') AS "assigneeId", 1 AS delta FROM added UNION ALL SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '') AS "assigneeId", -1 FROM removed) AS change
    GROUP BY "organizationId", mode, "projectId", status, priority, "assigneeId"
    HAVING sum(delta) <> 0
    ORDER BY "projectId", status, priority, "assigneeId"
    ON CONFLICT ("projectId", status, priority, "assigneeId", shard) DO UPDATE SET count = c.count + excluded.count;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Task_counted_insert" AFTER INSERT ON "Task"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "TaskCount_apply"();
CREATE TRIGGER "Task_counted_update" AFTER UPDATE ON "Task"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "TaskCount_apply"();
CREATE TRIGGER "Task_counted_delete" AFTER DELETE ON "Task"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "TaskCount_apply"();

-- The tasks already there, counted once.
INSERT INTO "TaskCount" ("organizationId", mode, "projectId", status, priority, "assigneeId", shard, count)
SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", ''), 0, count(*)
FROM "Task"
GROUP BY "organizationId", mode, "projectId", status, priority, "assigneeId";
