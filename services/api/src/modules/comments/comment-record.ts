import Joi from 'joi';
import type { Comment } from '@worktrack/db';
import type { CommentRecord } from '@worktrack/events';
import { out } from '../../http/record-fields';
import { defineResource } from '../../http/route';

export function toCommentRecord(comment: Comment): CommentRecord {
  return {
    id: comment.id,
    taskId: comment.taskId,
    authorId: comment.authorId,
    content: comment.content,
    mentions: comment.mentions,
    createdAt: comment.createdAt.toISOString(),
    updatedAt: comment.updatedAt.toISOString(),
  };
}

export const commentRecordSchema = Joi.object<CommentRecord, true>({
  id: out.id('cmt'),
  taskId: out.id('tsk'),
  authorId: Joi.string().required(),
  content: Joi.string().required().example('Looks good to me'),
  mentions: Joi.array().items(Joi.string()).required().description('Member ids'),
  createdAt: out.timestamp(),
  updatedAt: out.timestamp(),
}).id('CommentRecord');

/**
 * The comments of the task named by the path: the finder matches that task too, so a comment is
 * never reached through another task (404 naming commentId). A function of the task id because a
 * resource's finder sees only its own id; check the task itself first (`taskResource`), so that an
 * unknown task is a 404 naming taskId.
 */
export const commentResource = (taskId: string) =>
  defineResource<Comment>({
    param: 'commentId',
    name: 'comment',
    find: (data, id) => data.comments.find(taskId, id),
    lockRow: (tx, id) => tx.comments.lock(id),
    toRecord: toCommentRecord,
  });
