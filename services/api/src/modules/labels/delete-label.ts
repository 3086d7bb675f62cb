import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { labelResource, toLabelRecord } from './label-record';
import { labelParams } from './label-schemas';

export const deleteLabel = defineRoute({
  operationId: 'deleteLabel',
  method: 'delete',
  path: '/labels/:labelId',
  summary: 'Delete a label',
  description: 'Takes it off every task that carries it, with one `label.deleted` event (no `task.updated` per task).',
  tag: 'Labels',
  permission: 'projects:write',
  params: labelParams,
  locks: labelResource,
  status: 204,
  response: null,
  handler: async ({ tenant, deps, lock }) =>
    deps.data(tenant).commitWithEvents(async (tx) => {
      await tx.labels.lockVocabulary({ exclusive: true });
      const label = await lock(tx);
      await tx.labels.remove(label.id);
      return { result: undefined, events: [events.labelDeleted(toLabelRecord(label))] };
    }),
});
