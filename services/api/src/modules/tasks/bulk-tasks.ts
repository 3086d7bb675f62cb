import type { EventToRecord, TenantTx } from '@worktrack/db';
import { events, type TaskRecord } from '@worktrack/events';
import { ApiError, invalid, type ItemError } from '../../http/errors';
import { defineRoute, type Caller } from '../../http/route';
import { prepareOperation, type PreparedOperation } from '../../pipeline';
import { refusalsOf } from '../../write-rules';
import { createTask, insertTasks } from './create-task';
import { deleteTask } from './delete-task';
import { bulkTasksBody, bulkTasksResponse, type BulkItem, type BulkResult } from './task-bulk-schemas';
import type { TaskInput } from './task-schemas';
import { updateTask } from './update-task';

const SINGLE = { create: createTask, update: updateTask, delete: deleteTask } as const;

type Prepared = PreparedOperation<unknown, unknown, unknown, TaskRecord | undefined>;

/** An item's shape beyond what each field allows alone: `id` and `data` as its op takes them. */
function assertShape(item: BulkItem): void {
  if (item.op === 'create' && item.id !== undefined) throw invalid('id', 'A create takes no id');
  if (item.op !== 'create' && item.id === undefined) throw invalid('id', 'Missing required field: id');
  if (item.op === 'delete' && item.data !== undefined) throw invalid('data', 'Unknown field: data');
  if (item.op !== 'delete' && item.data === undefined) throw invalid('data', 'Missing required field: data');
}

/** The item's single operation through the pipeline, its write rules left to be checked with the others'. */
async function prepareItem(item: BulkItem, caller: Caller): Promise<Prepared> {
  assertShape(item);
  const request = { params: item.id === undefined ? {} : { taskId: item.id }, body: item.data ?? {} };
  return (await prepareOperation(SINGLE[item.op] as never, caller, request, { rules: 'checked by the caller' })) as Prepared;
}

/** An item's refusal as the list names it: body fields under `data.`, the path's task as `id`. */
function itemError(index: number, err: unknown): ItemError {
  if (!(err instanceof ApiError)) throw err;
  const param = err.param === 'taskId' ? 'id' : err.param === null || err.param === 'id' || err.param === 'data' ? err.param : `data.${err.param}`;
  return { index, code: err.code, param, message: err.message };
}

/** The whole request refused: the first failing item's status and error, and every failing item. */
function refusal(errors: ItemError[]): ApiError {
  const [first] = errors as [ItemError, ...ItemError[]];
  const message = `${errors.length} of the operations failed, so none was applied; the first, operations[${first.index}]: ${first.message}`;
  return new ApiError(first.code, message, first.param && `operations.${first.index}.${first.param}`, errors);
}

export const bulkTasks = defineRoute({
  operationId: 'bulkTasks',
  method: 'post',
  path: '/tasks/bulk',
  summary: 'Create, update and delete tasks in one request',
  description:
    '1-100 operations, applied in one transaction: all of them or, when any fails, none. Each is the single operation it names (`POST /tasks`, `PATCH /tasks/{taskId}`, `DELETE /tasks/{taskId}`) with its rules and its events, which are emitted in item order. ' +
    'When any fails, the answer has the status the first failing one would get alone, and `error.errors` lists every failing item by `index`. ' +
    'It counts as `operations.length` requests against the daily quota; a bulk larger than what remains is a 429 with nothing applied.',
  tag: 'Tasks',
  permission: 'tasks:write',
  body: bulkTasksBody,
  countsAs: (body) => body.operations.length,
  errors: ['not_found'],
  status: 200,
  response: bulkTasksResponse,
  handler: async ({ body, tenant, via, deps, req, res }) => {
    const caller: Caller = { tenant, via, deps, req, res };
    const { operations } = body;
    const errors: (ItemError | undefined)[] = [];
    const prepared: (Prepared | undefined)[] = [];
    for (const [index, item] of operations.entries()) {
      prepared[index] = await prepareItem(item, caller).catch((err: unknown) => void (errors[index] = itemError(index, err)));
    }
    const refused = await refusalsOf(
      deps.data(tenant),
      prepared.map((operation) => operation?.named ?? {}),
    );
    for (const [index, err] of refused.entries()) if (err) errors[index] ??= itemError(index, err);

    return deps.data(tenant).commitWithEvents(async (tx) => {
      const results: BulkResult[] = [];
      const emitted: EventToRecord[][] = [];
      const runnable = operations.flatMap((item, index) => (errors[index] ? [] : [{ item, index, operation: prepared[index]! }]));

      /** Consecutive creates, inserted together. */
      const insertCreates = async (creates: typeof runnable) => {
        if (creates.length === 0) return;
        const records = await insertTasks(
          tx,
          tenant,
          creates.map(({ operation }) => operation.body as TaskInput),
          (k, err) => {
            errors[creates[k]!.index] = itemError(creates[k]!.index, err);
          },
        );
        for (const [k, { index }] of creates.entries()) {
          const record = records[k];
          if (!record) continue;
          results[index] = { index, op: 'create', id: record.id, task: record };
          emitted[index] = [events.taskCreated(record)];
        }
      };

      /** An update or delete: the single operation's handler, its change committed in this transaction and its events kept for item order. */
      const runItem = async ({ item, index, operation }: (typeof runnable)[number]) => {
        const commit = async <T>(change: unknown): Promise<T> => {
          if (typeof change !== 'function') throw new Error('a bulk item commits within the bulk transaction');
          const changed = await (change as (tx: TenantTx) => Promise<{ result: T; events: EventToRecord[] }>)(tx);
          emitted[index] = changed.events;
          return changed.result;
        };
        try {
          const task = await operation.run(commit as never);
          results[index] = { index, op: item.op, id: item.id!, task: task ?? null };
        } catch (err) {
          errors[index] = itemError(index, err);
        }
      };

      // In item order, as one by one (a create under a task an earlier item deleted is refused), each run of consecutive creates in one insert.
      let creates: typeof runnable = [];
      for (const entry of runnable) {
        if (entry.item.op === 'create') {
          creates.push(entry);
          continue;
        }
        await insertCreates(creates);
        creates = [];
        await runItem(entry);
      }
      await insertCreates(creates);

      const failed = errors.filter((err): err is ItemError => err !== undefined);
      if (failed.length > 0) throw refusal(failed);
      return { result: { results }, events: emitted.flat() };
    });
  },
});
