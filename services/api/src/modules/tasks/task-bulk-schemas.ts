import Joi from 'joi';
import type { TaskRecord } from '@worktrack/events';
import { taskRecordSchema } from './task-record';

type BulkOp = 'create' | 'update' | 'delete';

/** One item as the client sent it: its `data` is checked by its single operation's declaration, in the pipeline. */
export interface BulkItem {
  op: BulkOp;
  id?: string;
  data?: Record<string, unknown>;
}

const MAX_BULK_OPERATIONS = 100;

const item = Joi.object<BulkItem, true>({
  op: Joi.string().valid('create', 'update', 'delete').required().description('`create` takes `data`; `update` takes `id` and `data`; `delete` takes `id`'),
  id: Joi.string().max(100).description('The task (`update`, `delete`)'),
  data: Joi.object().unknown(true).description('The body of `POST /tasks` (`create`) or `PATCH /tasks/{taskId}` (`update`)'),
}).id('BulkTaskOperation');

export const bulkTasksBody = Joi.object<{ operations: BulkItem[] }, true>({
  operations: Joi.array().items(item).min(1).max(MAX_BULK_OPERATIONS).required(),
});

export interface BulkResult {
  index: number;
  op: BulkOp;
  id: string;
  task: TaskRecord | null;
}

export const bulkTasksResponse = Joi.object<{ results: BulkResult[] }, true>({
  results: Joi.array()
    .items(
      Joi.object<BulkResult>({
        index: Joi.number().integer().min(0).required(),
        op: Joi.string().valid('create', 'update', 'delete').required(),
        id: Joi.string().required().description('The task created, updated or deleted'),
        task: Joi.alternatives(taskRecordSchema, Joi.valid(null)).required().description('The task as its single operation answers it; null for a delete'),
      }).id('BulkTaskResult'),
    )
    .required(),
});
