import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { taskResource } from '../tasks/task-record';
import { commentRecordSchema, toCommentRecord } from './comment-record';
import { commentOrder, listCommentsQuery, taskCommentsParams } from './comment-schemas';

/** Oldest first, so a conversation reads top to bottom. */
export const listComments = defineRoute({
  operationId: 'listTaskComments',
  method: 'get',
  path: '/tasks/:taskId/comments',
  summary: "List a task's comments",
  description: 'Oldest first, so a conversation reads top to bottom, unless `sort` says otherwise.',
  tag: 'Comments',
  permission: 'comments:read',
  params: taskCommentsParams,
  query: listCommentsQuery,
  resource: taskResource,
  status: 200,
  response: pageOf(commentRecordSchema),
  handler: async (request) => {
    const { resource: task, tenant, deps } = request;
    return paginate(request, { order: commentOrder, ...deps.data(tenant).comments.list(task.id), toRecord: toCommentRecord });
  },
});
