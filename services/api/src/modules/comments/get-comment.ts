import { defineRoute } from '../../http/route';
import { taskResource } from '../tasks/task-record';
import { commentRecordSchema, commentResource, toCommentRecord } from './comment-record';
import { commentParams } from './comment-schemas';

export const getComment = defineRoute({
  operationId: 'getTaskComment',
  method: 'get',
  path: '/tasks/:taskId/comments/:commentId',
  summary: 'Get a comment',
  tag: 'Comments',
  permission: 'comments:read',
  params: commentParams,
  // The task, then its comment: a nested resource cannot be declared as the route's resource yet.
  errors: ['not_found'],
  etag: true,
  status: 200,
  response: commentRecordSchema,
  handler: async ({ params, tenant, deps }) => {
    const data = deps.data(tenant);
    await taskResource.load(data, params.taskId);
    return toCommentRecord(await commentResource(params.taskId).load(data, params.commentId));
  },
});
