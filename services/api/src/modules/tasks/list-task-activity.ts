import Joi from 'joi';
import { creationOrder } from '../../http/list-order';
import { pageOf, pageQuery, paginate, type PageParams } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { activityRecordSchema, toActivityRecord, type ActivityRecord } from './activity-record';
import { taskResource } from './task-record';
import { taskParams } from './task-schemas';

const activityOrder = creationOrder<ActivityRecord>('task-activity', 'createdAt');

/** A task's history, kept as long as the task whatever the events' retention. */
export const listTaskActivity = defineRoute({
  operationId: 'listTaskActivity',
  method: 'get',
  path: '/tasks/:taskId/activity',
  summary: "List a task's activity",
  description:
    "Oldest first: its creation, every change (`changes`: `{field: {from, to}}`), its completion, its comments (created, edited, deleted) and its relations (added and removed, on either of their tasks), each naming who did it. Kept as long as the task exists, whatever the events' retention.",
  tag: 'Tasks',
  permission: 'tasks:read',
  params: taskParams,
  query: Joi.object<PageParams<'createdAt'>, true>({ ...pageQuery(activityOrder) }),
  resource: taskResource,
  status: 200,
  response: pageOf(activityRecordSchema),
  handler: async (request) => {
    const { resource: task, tenant, deps } = request;
    return paginate(request, { order: activityOrder, ...deps.data(tenant).taskActivity.list(task.id), toRecord: toActivityRecord });
  },
});
