-- CreateEnum
CREATE TYPE "RelationType" AS ENUM ('blocks', 'relates_to', 'duplicates');

-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "labelIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "parentId" TEXT;

-- CreateTable
CREATE TABLE "SubtaskCount" (
    "parentId" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "total" BIGINT NOT NULL,
    "done" BIGINT NOT NULL,

    CONSTRAINT "SubtaskCount_pkey" PRIMARY KEY ("parentId","shard")
);

-- CreateTable
CREATE TABLE "Label" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "name" TEXT NOT NULL,
    "color" TEXT,
    "description" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Label_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskRelation" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "type" "RelationType" NOT NULL,
    "fromTaskId" TEXT NOT NULL,
    "toTaskId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TaskRelation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Label_organizationId_mode_createdAt_id_idx" ON "Label"("organizationId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "TaskRelation_toTaskId_idx" ON "TaskRelation"("toTaskId");

-- CreateIndex
CREATE UNIQUE INDEX "TaskRelation_fromTaskId_toTaskId_type_key" ON "TaskRelation"("fromTaskId", "toTaskId", "type");

-- CreateIndex
CREATE INDEX "Task_parentId_createdAt_id_idx" ON "Task"("parentId", "createdAt", "id");

-- AddForeignKey
ALTER TABLE "Task" ADD CONSTRAINT "Task_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Task"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SubtaskCount" ADD CONSTRAINT "SubtaskCount_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Label" ADD CONSTRAINT "Label_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskRelation" ADD CONSTRAINT "TaskRelation_fromTaskId_fkey" FOREIGN KEY ("fromTaskId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskRelation" ADD CONSTRAINT "TaskRelation_toTaskId_fkey" FOREIGN KEY ("toTaskId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- GET /tasks?labelId=a,b: the tasks whose labels overlap the list.
CREATE INDEX "Task_labelIds_idx" ON "Task" USING GIN ("labelIds");

-- A label's name is unique in its organization and mode whatever its case.
CREATE UNIQUE INDEX "Label_name_key" ON "Label"("organizationId", "mode", lower("name"));

-- relates_to is symmetric: A relates_to B and B relates_to A are the same relation.
CREATE UNIQUE INDEX "TaskRelation_relates_to_key" ON "TaskRelation"(LEAST("fromTaskId", "toTaskId"), GREATEST("fromTaskId", "toTaskId")) WHERE "type" = 'relates_to';

-- The triggers that keep "SubtaskCount", as "TaskCount_apply" keeps "TaskCount": after each statement
-- that inserts, deletes or updates tasks, the net change of each parent's children and done children
-- is added to the writing connection's shard (its backend pid modulo 8), in key order. A parent
-- deleted in the same statement (or whose children its deletion detaches) is skipped: its rows go
-- with it by cascade.
CREATE FUNCTION "SubtaskCount_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "SubtaskCount" AS c ("parentId", shard, total, done)
    SELECT "parentId", pg_backend_pid() % 8, count(*), count(*) FILTER (WHERE status = 'done')
    FROM added WHERE "parentId" IS NOT NULL
    GROUP BY "parentId"
    ORDER BY "parentId"
    ON CONFLICT ("parentId", shard) DO UPDATE SET total = c.total + excluded.total, done = c.done + excluded.done;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "SubtaskCount" AS c ("parentId", shard, total, done)
    SELECT "parentId", pg_backend_pid() % 8, -count(*), -count(*) FILTER (WHERE status = 'done')
    FROM removed WHERE "parentId" IS NOT NULL AND EXISTS (SELECT 1 FROM "Task" p WHERE p.id = removed."parentId")
    GROUP BY "parentId"
    ORDER BY "parentId"
    ON CONFLICT ("parentId", shard) DO UPDATE SET total = c.total + excluded.total, done = c.done + excluded.done;
  ELSE
    INSERT INTO "SubtaskCount" AS c ("parentId", shard, total, done)
    SELECT "parentId", pg_backend_pid() % 8, sum(total), sum(done)
    FROM (
      SELECT "parentId", 1 AS total, (status = 'done')::int AS done FROM added WHERE "parentId" IS NOT NULL
      UNION ALL
      SELECT "parentId", -1, -(status = 'done')::int FROM removed WHERE "parentId" IS NOT NULL
    ) AS change
    WHERE EXISTS (SELECT 1 FROM "Task" p WHERE p.id = change."parentId")
    GROUP BY "parentId"
    HAVING sum(total) <> 0 OR sum(done) <> 0
    ORDER BY "parentId"
    ON CONFLICT ("parentId", shard) DO UPDATE SET total = c.total + excluded.total, done = c.done + excluded.done;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Task_subtasks_insert" AFTER INSERT ON "Task"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "SubtaskCount_apply"();
CREATE TRIGGER "Task_subtasks_update" AFTER UPDATE ON "Task"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "SubtaskCount_apply"();
CREATE TRIGGER "Task_subtasks_delete" AFTER DELETE ON "Task"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "SubtaskCount_apply"();
