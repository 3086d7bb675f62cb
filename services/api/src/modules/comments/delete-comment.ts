import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { taskResource } from '../tasks/task-record';
import { commentResource, toCommentRecord } from './comment-record';
import { assertMayChange } from './comment-rules';
import { commentParams } from './comment-schemas';

export const deleteComment = defineRoute({
  operationId: 'deleteTaskComment',
  method: 'delete',
  path: '/tasks/:taskId/comments/:commentId',
  summary: 'Delete a comment',
  description: 'Only its author or an admin may delete a comment.',
  tag: 'Comments',
  permission: 'comments:write',
  params: commentParams,
  locks: (params) => commentResource(params.taskId),
  status: 204,
  response: null,
  handler: ({ params, tenant, lock, commit }) =>
    commit(async (tx) => {
      const task = await taskResource.load(tx, params.taskId);
      const comment = await lock(tx);
      assertMayChange(tenant, comment);
      await tx.comments.remove(comment.id);
      return { result: undefined, events: [events.commentDeleted(toCommentRecord(comment), task.projectId)] };
    }),
});
