import Joi from 'joi';
import type { CommentRecord } from '@worktrack/events';
import { creationOrder } from '../../http/list-order';
import { pageQuery, type PageParams } from '../../http/pagination';
import { fields } from '../../http/fields';

const content = Joi.string().min(1).max(10_000);
const mentions = Joi.array().items(fields.ref()).max(50).unique();

export interface CommentInput {
  content: string;
  mentions?: string[];
}

export const taskCommentsParams = Joi.object<{ taskId: string }, true>({ taskId: Joi.string().max(100).required() });
export const commentParams = Joi.object<{ taskId: string; commentId: string }, true>({
  taskId: Joi.string().max(100).required(),
  commentId: Joi.string().max(100).required(),
});
export const createCommentBody = Joi.object<CommentInput, true>({ content: content.required(), mentions });
export const updateCommentBody = Joi.object<Partial<CommentInput>, true>({ content, mentions });
/** Oldest first, so a conversation reads top to bottom. */
export const commentOrder = creationOrder<CommentRecord>('comments', 'createdAt');
export const listCommentsQuery = Joi.object<PageParams<'createdAt'>, true>({ ...pageQuery(commentOrder) });
