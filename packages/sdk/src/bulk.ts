import type { WorktrackClient } from './client.js';
import { unwrap } from './errors.js';
import type { components, paths } from './generated/openapi.js';

type TaskCreate = paths['/v1/tasks']['post']['requestBody']['content']['application/json'];
type TaskUpdate = NonNullable<paths['/v1/tasks/{taskId}']['patch']['requestBody']>['content']['application/json'];

/** One item of `POST /v1/tasks/bulk`, typed by its op: the body of the single operation it stands for. */
export type BulkTaskOperation = { op: 'create'; data: TaskCreate } | { op: 'update'; id: string; data: TaskUpdate } | { op: 'delete'; id: string };

/** An applied operation: the task as its single operation answers it, null for a delete (the document says `const: null`, which generators read as unknown). */
export type BulkTaskResult = Omit<components['schemas']['BulkTaskResult'], 'task'> & { task: components['schemas']['Task'] | null };

/**
 * Applies up to 100 task operations at once, all or none (`POST /v1/tasks/bulk`): the results in
 * item order, or a `WorktrackApiError` whose `errors` name every failing item by index. It counts as
 * `operations.length` requests against the daily quota. Like every POST of this client it carries an
 * `Idempotency-Key`, so a retried bulk is applied once.
 */
export async function bulkTasks(
  client: WorktrackClient,
  operations: BulkTaskOperation[],
  options: { idempotencyKey?: string } = {},
): Promise<BulkTaskResult[]> {
  const headers = options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey };
  const { results } = await unwrap(client.POST('/v1/tasks/bulk', { body: { operations }, headers }));
  return results as BulkTaskResult[];
}
