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
  // The SDK stamps $metadata on every failed request: the store's answer's status, or none when no
  // answer came back (refused, reset, timed out, unresolvable). Not decided by error code or class:
  // inside a vm context (jest) the SDK swaps Node's network errors, which come from another realm,
  // for a bare Error.
  const metadata = (error as { $metadata?: { httpStatusCode?: number } } | null | undefined)?.$metadata;
  if (metadata === undefined) return false;
  return metadata.httpStatusCode === undefined || UNAVAILABLE_STATUSES.has(metadata.httpStatusCode);
}

/** Turns connection failures into StorageUnavailableError; S3 answers such as NoSuchKey pass through. */
export function toStorageError(error: unknown): unknown {
  return isUnavailable(error) ? new StorageUnavailableError(error) : error;
}
