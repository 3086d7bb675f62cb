import { events } from '@worktrack/events';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { taskResource } from '../tasks/task-record';
import { toRelationEventRecord } from './relation-record';
import { relationParams } from './relation-schemas';

export const deleteRelation = defineRoute({
  operationId: 'deleteTaskRelation',
  method: 'delete',
  path: '/tasks/:taskId/relations/:relationId',
  summary: 'Delete a relation',
  description: 'From either of its tasks.',
  tag: 'Relations',
  permission: 'tasks:write',
  params: relationParams,
  errors: ['not_found'],
  status: 204,
  response: null,
  handler: ({ params, tenant, deps }) =>
    deps.data(tenant).commitWithEvents(async (tx) => {
      const task = await taskResource.load(tx, params.taskId);
      const relation = await tx.relations.findOf(task.id, params.relationId);
      if (!relation || !(await tx.relations.remove(relation.id))) throw notFound('relationId', 'No such relation');
      const [first] = await tx.relations.lockTasks([relation.fromTaskId]);
      return { result: undefined, events: [events.relationDeleted(toRelationEventRecord(relation, first!.projectId))] };
    }),
});
