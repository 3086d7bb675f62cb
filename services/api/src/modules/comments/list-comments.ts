import { scoped } from '@worktrack/db';
import { envelope } from '../../http/pagination';
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
    const [comments, total] = await deps.db.$transaction([
      deps.db.comment.findMany({ where, orderBy: { id: 'asc' }, take: query.limit, skip: query.offset }),
      deps.db.comment.count({ where }),
    ]);
    return envelope(comments.map(toCommentRecord), total, query);
  },
});
