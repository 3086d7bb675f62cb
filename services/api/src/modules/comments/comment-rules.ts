import type { Comment } from '@worktrack/db';
import { forbidden } from '../../http/errors';
import type { Tenant } from '../../http/auth';

/** Only the author or an admin edits or deletes a comment. */
export function assertMayChange(tenant: Tenant, comment: Comment): void {
  if (comment.authorId !== tenant.userId && tenant.role !== 'admin') {
    throw forbidden('Only the author or an admin may change this comment');
  }
}
