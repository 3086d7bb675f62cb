/**
 * `@worktrack/sdk`: a typed client of the worktrack API, generated from its OpenAPI document.
 * Browser-safe (fetch only); the webhook verifier is in `@worktrack/sdk/webhooks`.
 */
export { bulkTasks, type BulkTaskOperation, type BulkTaskResult } from './bulk.js';
export { createClient, IDEMPOTENCY_KEY_HEADER, type ClientOptions, type WorktrackClient } from './client.js';
export { unwrap, WorktrackApiError, type FetchResult } from './errors.js';
export type { Actor, EventRecord, EventsClient, FeedOptions, FeedPage, StreamedEvent, StreamOptions } from './events.js';
export { randomIdempotencyKey } from './idempotency-key.js';
export { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay, RETRYABLE_STATUSES, type RetryPolicy } from './retry.js';
export type * from './types.js';
