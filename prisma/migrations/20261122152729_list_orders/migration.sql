-- DropIndex
DROP INDEX "Comment_organizationId_mode_taskId_id_idx";

-- DropIndex
DROP INDEX "Delivery_webhookId_id_idx";

-- DropIndex
DROP INDEX "File_organizationId_mode_projectId_id_idx";

-- DropIndex
DROP INDEX "OutboxEvent_organizationId_mode_createdAt_idx";

-- DropIndex
DROP INDEX "OutboxEvent_organizationId_mode_id_idx";

-- DropIndex
DROP INDEX "Task_organizationId_mode_id_idx";

-- DropIndex
DROP INDEX "Task_organizationId_mode_projectId_id_idx";

-- CreateIndex
CREATE INDEX "Comment_organizationId_mode_taskId_createdAt_id_idx" ON "Comment"("organizationId", "mode", "taskId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Delivery_webhookId_createdAt_id_idx" ON "Delivery"("webhookId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "File_organizationId_mode_projectId_createdAt_id_idx" ON "File"("organizationId", "mode", "projectId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "OutboxEvent_organizationId_mode_createdAt_id_idx" ON "OutboxEvent"("organizationId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Task_organizationId_mode_projectId_createdAt_id_idx" ON "Task"("organizationId", "mode", "projectId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Task_organizationId_mode_projectId_updatedAt_id_idx" ON "Task"("organizationId", "mode", "projectId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Task_organizationId_mode_projectId_priority_id_idx" ON "Task"("organizationId", "mode", "projectId", "priority", "id");

-- CreateIndex
CREATE INDEX "Task_organizationId_mode_projectId_status_id_idx" ON "Task"("organizationId", "mode", "projectId", "status", "id");

-- CreateIndex
CREATE INDEX "Task_organizationId_mode_createdAt_id_idx" ON "Task"("organizationId", "mode", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Task_organizationId_mode_updatedAt_id_idx" ON "Task"("organizationId", "mode", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Task_organizationId_mode_priority_id_idx" ON "Task"("organizationId", "mode", "priority", "id");

-- What Prisma's schema cannot express (its diff leaves expression indexes alone). The expressions
-- here and in services/api/src/modules/tasks/task-order.ts and task-search.ts must stay identical,
-- or the planner will not use these indexes.

-- Tasks without a dueDate come last in either direction: one index per direction.
CREATE INDEX "Task_project_dueDate_asc_idx" ON "Task"("organizationId", "mode", "projectId", COALESCE("dueDate", 'infinity'::timestamptz), "id");
CREATE INDEX "Task_project_dueDate_desc_idx" ON "Task"("organizationId", "mode", "projectId", COALESCE("dueDate", '-infinity'::timestamptz), "id");
CREATE INDEX "Task_dueDate_asc_idx" ON "Task"("organizationId", "mode", COALESCE("dueDate", 'infinity'::timestamptz), "id");
CREATE INDEX "Task_dueDate_desc_idx" ON "Task"("organizationId", "mode", COALESCE("dueDate", '-infinity'::timestamptz), "id");

-- Titles sort case-insensitively, by the Unicode root collation (accented letters beside their base letters).
CREATE INDEX "Task_project_title_idx" ON "Task"("organizationId", "mode", "projectId", lower("title") COLLATE "und-x-icu", "id");
CREATE INDEX "Task_title_idx" ON "Task"("organizationId", "mode", lower("title") COLLATE "und-x-icu", "id");

-- q: words of the title and description, lower-cased and without accents.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE TEXT SEARCH CONFIGURATION worktrack_search (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION worktrack_search ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple;
CREATE INDEX "Task_search_idx" ON "Task" USING GIN (to_tsvector('worktrack_search'::regconfig, "title" || ' ' || COALESCE("description", '')));
