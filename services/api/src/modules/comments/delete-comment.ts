import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { defineRoute } from '../../http/route';
import { toCommentRecord } from './comment-record';
import { assertMayChange, assertTask, findComment } from './comment-rules';
import { commentParams } from './comment-schemas';

export const deleteComment = defineRoute({
  method: 'delete',
  path: '/tasks/:taskId/comments/:commentId',
  permission: 'comments:write',
  params: commentParams,
  handler: ({ params, tenant, deps }) =>
    commitWithEvents(deps, tenant, async (tx) => {
      await assertTask(tx, tenant, params.taskId);
      const comment = await findComment(tx, tenant, params.taskId, params.commentId);
      assertMayChange(tenant, comment);
      await tx.comment.delete({ where: { id: comment.id } });
      return { result: undefined, events: [events.commentDeleted(toCommentRecord(comment))] };
    }),
});
