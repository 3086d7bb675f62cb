import type { FeedPosition, Scope } from '@worktrack/db';
import { retainedSince } from '@worktrack/events';
import { cursorCodec, type Position } from '../../http/cursor';
import { ApiError, invalid } from '../../http/errors';

/** A position in the feed (its event's, whose cursor is the one that follows it) and when its event was written (which tells whether the cursor outlived the retention). */
interface CursorPosition extends FeedPosition {
  createdAt: Date;
}

// Sealed like the lists' cursors, bound to the tenant alone: the feed and every stream of the
// tenant, whatever their filters, take the same cursors.
const contextOf = (scope: Scope) => JSON.stringify(['event-feed', scope.organizationId, scope.mode]);
const SEPARATOR = ' ';

export function sealFeedCursor(secret: string, scope: Scope, position: CursorPosition): string {
  return cursorCodec(secret).seal({ value: [position.txid, position.createdAt.toISOString()].join(SEPARATOR), id: position.id, offset: 0 }, contextOf(scope));
}

/**
 * The position a cursor names: 400 naming `param` for one that is malformed or another tenant's,
 * 410 `cursor_expired` for one whose event is older than the retention (what followed it may be gone).
 */
export function openFeedCursor(secret: string, scope: Scope, cursor: string, param: string): FeedPosition {
  let position: Position;
  try {
    position = cursorCodec(secret).open(cursor, contextOf(scope));
  } catch {
    throw invalid(param, `${param} is not a cursor of this organization's events`);
  }
  const [txid, createdAt] = (position.value ?? '').split(SEPARATOR);
  if (!txid || !/^\d+$/.test(txid) || !createdAt) throw invalid(param, `${param} is not a cursor of this organization's events`);
  if (new Date(createdAt) < retainedSince()) {
    throw new ApiError('cursor_expired', 'The cursor is older than the 30 days events are kept: start again without one', param);
  }
  return { txid, id: position.id };
}
