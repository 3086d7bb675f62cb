import { events } from '@worktrack/events';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { taskResource } from '../tasks/task-record';
import { toRelationEventRecord } from './relation-record';
import { relationParams } from './relation-schemas';

const noSuchRelation = () => notFound('relationId', 'No such relation');

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
      if (!relation) throw noSuchRelation();
      // Both tasks are locked before the relation's row, as a task's deletion takes them: deleting
      // the relation and one of its tasks at once then waits rather than deadlocks. A task deleted
      // meanwhile took the relation with it.
      const locked = await tx.relations.lockTasks([relation.fromTaskId, relation.toTaskId]);
      const first = locked.find((row) => row.id === relation.fromTaskId);
      if (!first || !(await tx.relations.remove(relation.id))) throw noSuchRelation();
      return { result: undefined, events: [events.relationDeleted(toRelationEventRecord(relation, first.projectId))] };
    }),
});
