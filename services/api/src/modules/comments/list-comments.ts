import { scoped } from '@worktrack/db';
import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { taskResource } from '../tasks/task-record';
import { commentRecordSchema, toCommentRecord } from './comment-record';
import { listCommentsQuery, taskCommentsParams } from './comment-schemas';

/** Oldest first, so a conversation reads top to bottom. */
export const listComments = defineRoute({
  method: 'get',
  path: '/tasks/:taskId/comments',
  summary: "List a task's comments",
  description: 'Oldest first, so a conversation reads top to bottom.',
  tag: 'Comments',
  permission: 'comments:read',
  params: taskCommentsParams,
  query: listCommentsQuery,
  resource: taskResource,
  status: 200,
  response: pageOf(commentRecordSchema),
  handler: async ({ resource: task, query, tenant, deps }) => {
    const where = scoped(tenant, { taskId: task.id });
    return paginate(
      query,
      (window) => deps.db.comment.findMany({ where, orderBy: { id: 'asc' }, ...window }),
      () => deps.db.comment.count({ where }),
      toCommentRecord,
    );
  },
});
