import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { previousAttributes } from '../changes';
import { labelRecordSchema, labelResource, toLabelRecord } from './label-record';
import { labelParams, updateLabelBody } from './label-schemas';
import { nameTaken } from './name-taken';

export const updateLabel = defineRoute({
  operationId: 'updateLabel',
  method: 'patch',
  path: '/labels/:labelId',
  summary: 'Update a label',
  tag: 'Labels',
  permission: 'projects:write',
  params: labelParams,
  body: updateLabelBody,
  locks: labelResource,
  errors: ['conflict'],
  status: 200,
  response: labelRecordSchema,
  handler: ({ body, tenant, deps, lock }) =>
    deps.data(tenant).commitWithEvents(async (tx) => {
      const existing = await lock(tx);
      const before = toLabelRecord(existing);
      const changed = previousAttributes(before, toLabelRecord({ ...existing, ...body }));
      if (Object.keys(changed).length === 0) return { result: before, events: [] };

      const label = await tx.labels.update(existing.id, body);
      if (!label) throw nameTaken(body.name ?? existing.name);
      const after = toLabelRecord(label);
      return { result: after, events: [events.labelUpdated(after, changed)] };
    }),
});
