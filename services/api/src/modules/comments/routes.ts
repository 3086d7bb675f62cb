import { createComment } from './create-comment';
import { deleteComment } from './delete-comment';
import { getComment } from './get-comment';
import { listComments } from './list-comments';
import { updateComment } from './update-comment';

export const commentRoutes = [listComments, createComment, getComment, updateComment, deleteComment];
