import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { previousAttributes } from '../changes';
import { taskResource } from '../tasks/task-record';
import { commentRecordSchema, commentResource, toCommentRecord } from './comment-record';
import { assertMayChange } from './comment-rules';
import { commentParams, updateCommentBody } from './comment-schemas';

export const updateComment = defineRoute({
  operationId: 'updateTaskComment',
  method: 'patch',
  path: '/tasks/:taskId/comments/:commentId',
  summary: 'Edit a comment',
  description: 'Only its author or an admin may edit a comment. `mentions` must name members of the organization.',
  tag: 'Comments',
  permission: 'comments:write',
  params: commentParams,
  body: updateCommentBody,
  references: (body) => ({ members: { ids: body.mentions ?? [], param: 'mentions' } }),
  locks: (params) => commentResource(params.taskId),
  etag: true,
  status: 200,
  response: commentRecordSchema,
  handler: ({ params, body, tenant, lock, commit }) =>
    commit(async (tx) => {
      const task = await taskResource.load(tx, params.taskId);
      const existing = await lock(tx);
      assertMayChange(tenant, existing);
      const before = toCommentRecord(existing);
      const changed = previousAttributes(before, toCommentRecord({ ...existing, ...body }));
      if (Object.keys(changed).length === 0) return { result: before, events: [] };
      const after = toCommentRecord(await tx.comments.update(existing.id, body));
      return { result: after, events: [events.commentUpdated(after, changed, task.projectId)] };
    }),
});
