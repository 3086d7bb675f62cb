import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { taskResource } from '../tasks/task-record';
import { relationOrder } from './relation-order';
import { otherTaskId, relationRecordSchema, toRelationRecord } from './relation-record';
import { listRelationsQuery, relationsParams } from './relation-schemas';

export const listRelations = defineRoute({
  operationId: 'listTaskRelations',
  method: 'get',
  path: '/tasks/:taskId/relations',
  summary: "List a task's relations",
  description: "Both directions, from this task's side: `blocked_by` and `duplicated_by` are the other task's `blocks` and `duplicates`. Oldest first.",
  tag: 'Relations',
  permission: 'tasks:read',
  params: relationsParams,
  query: listRelationsQuery,
  errors: ['not_found'],
  status: 200,
  response: pageOf(relationRecordSchema),
  handler: async (request) => {
    const data = request.deps.data(request.tenant);
    const task = await taskResource.load(data, request.params.taskId);
    const listing = data.relations.listOf(task.id);
    return paginate(request, {
      order: relationOrder,
      rows: async (window) => {
        const relations = await listing.rows(window);
        const others = await data.relations.relatedTasks(relations.map((relation) => otherTaskId(relation, task.id)));
        // A task deleted since the relations were read takes its relations with it: they are left out.
        return relations.flatMap((relation) => {
          const other = others.get(otherTaskId(relation, task.id));
          return other ? [toRelationRecord(relation, task.id, other)] : [];
        });
      },
      total: listing.total,
      toRecord: (record) => record,
    });
  },
});
