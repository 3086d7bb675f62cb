import { defineRoute } from '../../http/route';
import { pageOf, paginate } from '../../http/pagination';
import { labelOrder } from './label-order';
import { labelRecordSchema, toLabelRecord } from './label-record';
import { listLabelsQuery } from './label-schemas';

export const listLabels = defineRoute({
  operationId: 'listLabels',
  method: 'get',
  path: '/labels',
  summary: 'List labels',
  description: 'Newest first. `q` finds the labels whose name contains it, whatever its case.',
  tag: 'Labels',
  permission: 'projects:read',
  query: listLabelsQuery,
  status: 200,
  response: pageOf(labelRecordSchema),
  handler: async (request) =>
    paginate(request, { order: labelOrder, ...request.deps.data(request.tenant).labels.list({ q: request.query.q }), toRecord: toLabelRecord }),
});
