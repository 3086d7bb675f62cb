import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { labelRecordSchema, toLabelRecord } from './label-record';
import { createLabelBody } from './label-schemas';
import { nameTaken } from './name-taken';

export const createLabel = defineRoute({
  operationId: 'createLabel',
  method: 'post',
  path: '/labels',
  summary: 'Create a label',
  description: 'Names are unique in the organization whatever their case (409 otherwise).',
  tag: 'Labels',
  permission: 'projects:write',
  body: createLabelBody,
  errors: ['conflict'],
  status: 201,
  response: labelRecordSchema,
  handler: ({ body, tenant, deps }) =>
    deps.data(tenant).commitWithEvents(async (tx) => {
      const label = await tx.labels.create({ name: body.name, color: body.color ?? null, description: body.description ?? null });
      if (!label) throw nameTaken(body.name);
      const record = toLabelRecord(label);
      return { result: record, events: [events.labelCreated(record)] };
    }),
});
