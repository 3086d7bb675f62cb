import { defineRoute } from '../../http/route';
import { labelRecordSchema, labelResource, toLabelRecord } from './label-record';
import { labelParams } from './label-schemas';

export const getLabel = defineRoute({
  operationId: 'getLabel',
  method: 'get',
  path: '/labels/:labelId',
  summary: 'Get a label',
  tag: 'Labels',
  permission: 'projects:read',
  params: labelParams,
  resource: labelResource,
  status: 200,
  response: labelRecordSchema,
  handler: async ({ resource }) => toLabelRecord(resource),
});
