import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { previousAttributes } from '../changes';
import { assertMembers } from '../members/assert-member';
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
  locks: (params) => commentResource(params.taskId),
  status: 200,
  response: commentRecordSchema,
  handler: ({ params, body, tenant, deps, lock }) =>
    deps.data(tenant).commitWithEvents(async (tx) => {
      const task = await taskResource.load(tx, params.taskId);
      const existing = await lock(tx);
      assertMayChange(tenant, existing);
      if (body.mentions) await assertMembers(tx, body.mentions, 'mentions');
      const before = toCommentRecord(existing);
      const changed = previousAttributes(before, toCommentRecord({ ...existing, ...body }));
      if (Object.keys(changed).length === 0) return { result: before, events: [] };
      const after = toCommentRecord(await tx.comments.update(existing.id, body));
      return { result: after, events: [events.commentUpdated(after, changed, task.projectId)] };
    }),
});
