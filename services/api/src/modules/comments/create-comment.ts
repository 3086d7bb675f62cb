import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { taskResource } from '../tasks/task-record';
import { commentRecordSchema, toCommentRecord } from './comment-record';
import { createCommentBody, taskCommentsParams } from './comment-schemas';

export const createComment = defineRoute({
  operationId: 'createTaskComment',
  method: 'post',
  path: '/tasks/:taskId/comments',
  summary: 'Comment on a task',
  description: '`mentions` must name members of the organization.',
  tag: 'Comments',
  permission: 'comments:write',
  params: taskCommentsParams,
  body: createCommentBody,
  references: (body) => ({ members: { ids: body.mentions ?? [], param: 'mentions' } }),
  // The task is checked inside the transaction rather than loaded before it.
  errors: ['not_found'],
  status: 201,
  response: commentRecordSchema,
  handler: ({ params, body, tenant, commit }) =>
    commit(async (tx) => {
      const task = await taskResource.load(tx, params.taskId);
      const mentions = body.mentions ?? [];
      const comment = await tx.comments.create({ taskId: params.taskId, authorId: tenant.userId, content: body.content, mentions });
      const record = toCommentRecord(comment);
      return { result: record, events: [events.commentCreated(record, task.projectId)] };
    }),
});
