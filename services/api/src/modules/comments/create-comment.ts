import { newId, scoped } from '@worktrack/db';
import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { defineRoute } from '../../http/route';
import { assertMembers } from '../members/assert-member';
import { toCommentRecord } from './comment-record';
import { assertTask } from './comment-rules';
import { createCommentBody, taskCommentsParams } from './comment-schemas';

export const createComment = defineRoute({
  method: 'post',
  path: '/tasks/:taskId/comments',
  permission: 'comments:write',
  params: taskCommentsParams,
  body: createCommentBody,
  status: 201,
  handler: ({ params, body, tenant, deps }) =>
    commitWithEvents(deps, tenant, async (tx) => {
      await assertTask(tx, tenant, params.taskId);
      const mentions = body.mentions ?? [];
      await assertMembers(tx, tenant.organizationId, mentions, 'mentions');
      const comment = await tx.comment.create({
        data: scoped(tenant, { id: newId('comment'), taskId: params.taskId, authorId: tenant.userId, content: body.content, mentions }),
      });
      const record = toCommentRecord(comment);
      return { result: record, events: [events.commentCreated(record)] };
    }),
});
