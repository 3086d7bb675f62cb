-- A relation is in the history of both its tasks (docs/decisions.md#history-actors-and-live-events):
-- either side lists it and can delete it, so either side's activity tells it was added and removed.
-- Each event names up to two tasks: a task event its `data.id`, a relation event its `data.taskId` and
-- `data.relatedTaskId`, the others (comments) their `data.taskId`. A lateral list keeps each a join on
-- the task's primary key.
CREATE OR REPLACE FUNCTION "OutboxEvent_task_activity"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "TaskActivity" ("taskId", id, "organizationId", mode, type, actor, changes, "createdAt")
  SELECT t.id, e.id, e."organizationId", e.mode, e.type, e.actor,
         (SELECT jsonb_object_agg(field, jsonb_build_object('from', e.data -> 'previousAttributes' -> field, 'to', e.data -> field))
          FROM jsonb_object_keys(CASE WHEN jsonb_typeof(e.data -> 'previousAttributes') = 'object' THEN e.data -> 'previousAttributes' ELSE '{}' END) AS field),
         e."createdAt"
  FROM new_events e
  CROSS JOIN LATERAL (VALUES
    (CASE WHEN e.type LIKE 'task.%' THEN e.data ->> 'id' ELSE e.data ->> 'taskId' END),
    (CASE WHEN e.type LIKE 'relation.%' THEN e.data ->> 'relatedTaskId' END)) AS about(task_id)
  JOIN "Task" t ON t.id = about.task_id
    AND t."organizationId" = e."organizationId" AND t.mode = e.mode
  WHERE e.type <> 'task.deleted'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
