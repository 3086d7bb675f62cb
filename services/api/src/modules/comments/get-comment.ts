import { defineRoute } from '../../http/route';
import { toCommentRecord } from './comment-record';
import { assertTask, findComment } from './comment-rules';
import { commentParams } from './comment-schemas';

export const getComment = defineRoute({
  method: 'get',
  path: '/tasks/:taskId/comments/:commentId',
  permission: 'comments:read',
  params: commentParams,
  handler: async ({ params, tenant, deps }) => {
    await assertTask(deps.db, tenant, params.taskId);
    return toCommentRecord(await findComment(deps.db, tenant, params.taskId, params.commentId));
  },
});
