import type { Comment } from '@worktrack/db';
import type { CommentRecord } from '@worktrack/events';

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
