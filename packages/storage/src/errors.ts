import { S3ServiceException } from '@aws-sdk/client-s3';

/** The object store could not be reached or answered that it is unavailable; worth a retry later. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';

  constructor(cause: unknown) {
    super(`Object storage is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Answers a gateway or an overloaded store gives while the store itself is down or shedding load. */
const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);

function isUnavailable(error: unknown): boolean {
  if (error instanceof S3ServiceException) return UNAVAILABLE_STATUSES.has(error.$metadata.httpStatusCode ?? 0);
  // The SDK stamps $metadata on every failed request; without an HTTP status no answer came back
  // (refused, reset, timed out, unresolvable). Not decided by error code: inside a vm context
  // (jest) the SDK swaps Node's network errors, which come from another realm, for a bare Error.
  const metadata = (error as { $metadata?: { httpStatusCode?: number } } | null | undefined)?.$metadata;
  return metadata !== undefined && metadata.httpStatusCode === undefined;
}

/** Turns connection failures into StorageUnavailableError; S3 answers such as NoSuchKey pass through. */
export function toStorageError(error: unknown): unknown {
  return isUnavailable(error) ? new StorageUnavailableError(error) : error;
}
