import { createHash } from 'node:crypto';
import { ApiError } from './errors';

/**
 * A strong entity tag of a record: a hash of its JSON, which is the body its GET answers with byte
 * for byte. Computed from the record rather than stored, so every resource has one, and any change
 * that shows in the record (updatedAt included) changes it.
 */
export function etagOf(record: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(record)).digest('base64url')}"`;
}

const tagsOf = (header: string) => header.split(',').map((tag) => tag.trim());

/** `If-None-Match` names the current representation (weak comparison: a `W/` prefix is ignored): answer 304. */
export function isNotModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return tagsOf(ifNoneMatch).some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);
}

/** `If-Match` (strong comparison, `*` for any) no longer names the current representation: 412. */
export function assertIfMatch(ifMatch: string | undefined, etag: string): void {
  if (ifMatch === undefined) return;
  if (tagsOf(ifMatch).some((tag) => tag === '*' || tag === etag)) return;
  throw new ApiError('precondition_failed', 'The resource changed since the ETag given in If-Match: read it again, then retry');
}
