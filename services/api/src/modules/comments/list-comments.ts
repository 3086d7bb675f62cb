import { scoped } from '@worktrack/db';
import { paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { toCommentRecord } from './comment-record';
import { assertTask } from './comment-rules';
import { listCommentsQuery, taskCommentsParams } from './comment-schemas';

/** Oldest first, so a conversation reads top to bottom. */
export const listComments = defineRoute({
  method: 'get',
  path: '/tasks/:taskId/comments',
  permission: 'comments:read',
  params: taskCommentsParams,
  query: listCommentsQuery,
  handler: async ({ params, query, tenant, deps }) => {
    await assertTask(deps.db, tenant, params.taskId);
    const where = scoped(tenant, { taskId: params.taskId });
    return paginate(
      query,
      (window) => deps.db.comment.findMany({ where, orderBy: { id: 'asc' }, ...window }),
      () => deps.db.comment.count({ where }),
      toCommentRecord,
    );
  },
});
