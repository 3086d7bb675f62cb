import { events } from '@worktrack/events';

import { defineRoute } from '../../http/route';
import { conflict, invalid, notFound } from '../../http/errors';
import { relationRecordSchema, toRelationEventRecord, toRelationRecord } from './relation-record';
import { createRelationBody, relationsParams } from './relation-schemas';

export const createRelation = defineRoute({
  operationId: 'createTaskRelation',
  method: 'post',
  path: '/tasks/:taskId/relations',
  summary: 'Relate a task to another',
  description:
    'This task `blocks`, `relates_to` or `duplicates` the other, of any project. A relation the pair already holds (either way round for `relates_to`) is a 409.',
  tag: 'Relations',
  permission: 'tasks:write',
  params: relationsParams,
  body: createRelationBody,
  errors: ['not_found'],
  status: 201,
  response: relationRecordSchema,
  handler: ({ params, body, tenant, deps }) =>
    deps.data(tenant).commitWithEvents(async (tx) => {
      // Neither task can be deleted before the relation commits.
      const locked = await tx.relations.lockTasks([params.taskId, body.taskId]);
      const task = locked.find((row) => row.id === params.taskId);
      const other = locked.find((row) => row.id === body.taskId);
      if (!task) throw notFound('taskId', 'No such task');
      if (!other) throw invalid('taskId', 'taskId must be a task of the organization');
      if (other.id === task.id) throw invalid('taskId', 'A task cannot be related to itself');

      const relation = await tx.relations.create({ type: body.type, fromTaskId: task.id, toTaskId: other.id });
      if (!relation) throw conflict('The tasks already hold this relation', 'taskId');
      return {
        result: toRelationRecord(relation, task.id, other),
        events: [events.relationCreated(toRelationEventRecord(relation, task.projectId))],
      };
    }),
});
