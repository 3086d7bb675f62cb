import { lockRow } from '@worktrack/db';
import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { defineRoute } from '../../http/route';
import { previousAttributes } from '../changes';
import { assertMembers } from '../members/assert-member';
import { toCommentRecord } from './comment-record';
import { assertMayChange, assertTask, findComment } from './comment-rules';
import { commentParams, updateCommentBody } from './comment-schemas';

export const updateComment = defineRoute({
  method: 'patch',
  path: '/tasks/:taskId/comments/:commentId',
  permission: 'comments:write',
  params: commentParams,
  body: updateCommentBody,
  handler: ({ params, body, tenant, deps }) =>
    commitWithEvents(deps, tenant, async (tx) => {
      await assertTask(tx, tenant, params.taskId);
      await lockRow(tx, 'Comment', params.commentId);
      const existing = await findComment(tx, tenant, params.taskId, params.commentId);
      assertMayChange(tenant, existing);
      if (body.mentions) await assertMembers(tx, tenant.organizationId, body.mentions, 'mentions');
      const before = toCommentRecord(existing);
      const changed = previousAttributes(before, toCommentRecord({ ...existing, ...body }));
      if (Object.keys(changed).length === 0) return { result: before, events: [] };
      const after = toCommentRecord(await tx.comment.update({ where: { id: existing.id }, data: body }));
      return { result: after, events: [events.commentUpdated(after, changed)] };
    }),
});
