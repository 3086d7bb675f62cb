-- The exact totals of GET /tasks?topLevel=true and ?labelId= (one label) from maintained counts, as
-- the other list filters' (20261122174403_task_counts): counting the tasks took 100-300 ms at a
-- million tasks (docs/performance.md#lists-at-a-million-tasks).

-- "TaskCount" split by whether the tasks have a parent; recounted once.
TRUNCATE "TaskCount";
ALTER TABLE "TaskCount" ADD COLUMN "topLevel" BOOLEAN NOT NULL;
ALTER TABLE "TaskCount" DROP CONSTRAINT "TaskCount_pkey";
ALTER TABLE "TaskCount" ADD CONSTRAINT "TaskCount_pkey" PRIMARY KEY ("projectId", "status", "priority", "assigneeId", "topLevel", "shard");

CREATE OR REPLACE FUNCTION "TaskCount_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "TaskCount" AS c ("organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel", shard, count)
    SELECT "organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel", pg_backend_pid() % 8, sum(delta)
    FROM (SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '') AS "assigneeId", "parentId" IS NULL AS "topLevel", 1 AS delta FROM added) AS change
    GROUP BY "organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel"
    HAVING sum(delta) <> 0
    ORDER BY "projectId", status, priority, "assigneeId", "topLevel"
    ON CONFLICT ("projectId", status, priority, "assigneeId", "topLevel", shard) DO UPDATE SET count = c.count + excluded.count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "TaskCount" AS c ("organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel", shard, count)
    SELECT "organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel", pg_backend_pid() % 8, sum(delta)
    FROM (SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '') AS "assigneeId", "parentId" IS NULL AS "topLevel", -1 AS delta FROM removed WHERE EXISTS (SELECT 1 FROM "Project" p WHERE p.id = removed."projectId")) AS change
    GROUP BY "organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel"
    HAVING sum(delta) <> 0
    ORDER BY "projectId", status, priority, "assigneeId", "topLevel"
    ON CONFLICT ("projectId", status, priority, "assigneeId", "topLevel", shard) DO UPDATE SET count = c.count + excluded.count;
  ELSE
    INSERT INTO "TaskCount" AS c ("organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel", shard, count)
    SELECT "organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel", pg_backend_pid() % 8, sum(delta)
    FROM (SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '') AS "assigneeId", "parentId" IS NULL AS "topLevel", 1 AS delta FROM added UNION ALL SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", '') AS "assigneeId", "parentId" IS NULL, -1 FROM removed) AS change
    GROUP BY "organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel"
    HAVING sum(delta) <> 0
    ORDER BY "projectId", status, priority, "assigneeId", "topLevel"
    ON CONFLICT ("projectId", status, priority, "assigneeId", "topLevel", shard) DO UPDATE SET count = c.count + excluded.count;
  END IF;
  RETURN NULL;
END
$$;

INSERT INTO "TaskCount" ("organizationId", mode, "projectId", status, priority, "assigneeId", "topLevel", shard, count)
SELECT "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", ''), "parentId" IS NULL, 0, count(*)
FROM "Task"
GROUP BY "organizationId", mode, "projectId", status, priority, coalesce("assigneeId", ''), "parentId" IS NULL;

-- How many tasks of a project carry each label, kept the same way: after each statement, the net
-- change per project and label, in the writing connection's shard, in key order. A deleted label's
-- rows stay, at zero (its deletion takes it off the tasks).
CREATE TABLE "TaskLabelCount" (
    "organizationId" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "projectId" TEXT NOT NULL,
    "labelId" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "TaskLabelCount_pkey" PRIMARY KEY ("projectId", "labelId", "shard")
);

CREATE INDEX "TaskLabelCount_organizationId_mode_labelId_idx" ON "TaskLabelCount"("organizationId", "mode", "labelId");

ALTER TABLE "TaskLabelCount" ADD CONSTRAINT "TaskLabelCount_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE FUNCTION "TaskLabelCount_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "TaskLabelCount" AS c ("organizationId", mode, "projectId", "labelId", shard, count)
    SELECT "organizationId", mode, "projectId", label, pg_backend_pid() % 8, count(*)
    FROM added CROSS JOIN LATERAL unnest(added."labelIds") AS label
    GROUP BY "organizationId", mode, "projectId", label
    ORDER BY "projectId", label
    ON CONFLICT ("projectId", "labelId", shard) DO UPDATE SET count = c.count + excluded.count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "TaskLabelCount" AS c ("organizationId", mode, "projectId", "labelId", shard, count)
    SELECT "organizationId", mode, "projectId", label, pg_backend_pid() % 8, -count(*)
    FROM removed CROSS JOIN LATERAL unnest(removed."labelIds") AS label
    WHERE EXISTS (SELECT 1 FROM "Project" p WHERE p.id = removed."projectId")
    GROUP BY "organizationId", mode, "projectId", label
    ORDER BY "projectId", label
    ON CONFLICT ("projectId", "labelId", shard) DO UPDATE SET count = c.count + excluded.count;
  ELSE
    INSERT INTO "TaskLabelCount" AS c ("organizationId", mode, "projectId", "labelId", shard, count)
    SELECT "organizationId", mode, "projectId", label, pg_backend_pid() % 8, sum(delta)
    FROM (
      SELECT "organizationId", mode, "projectId", label, 1 AS delta FROM added CROSS JOIN LATERAL unnest(added."labelIds") AS label
      UNION ALL
      SELECT "organizationId", mode, "projectId", label, -1 FROM removed CROSS JOIN LATERAL unnest(removed."labelIds") AS label
    ) AS change
    GROUP BY "organizationId", mode, "projectId", label
    HAVING sum(delta) <> 0
    ORDER BY "projectId", label
    ON CONFLICT ("projectId", "labelId", shard) DO UPDATE SET count = c.count + excluded.count;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Task_label_counted_insert" AFTER INSERT ON "Task"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "TaskLabelCount_apply"();
CREATE TRIGGER "Task_label_counted_update" AFTER UPDATE ON "Task"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "TaskLabelCount_apply"();
CREATE TRIGGER "Task_label_counted_delete" AFTER DELETE ON "Task"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "TaskLabelCount_apply"();

INSERT INTO "TaskLabelCount" ("organizationId", mode, "projectId", "labelId", shard, count)
SELECT "organizationId", mode, "projectId", label, 0, count(*)
FROM "Task" CROSS JOIN LATERAL unnest("labelIds") AS label
GROUP BY "organizationId", mode, "projectId", label;
