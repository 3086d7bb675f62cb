import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { fileRecordSchema, toFileRecord } from './file-record';
import { fileOrder, listFilesQuery } from './file-schemas';

export const listFiles = defineRoute({
  operationId: 'listFiles',
  method: 'get',
  path: '/files',
  summary: 'List files',
  description: 'Newest first unless `sort` says otherwise.',
  tag: 'Files',
  permission: 'files:read',
  query: listFilesQuery,
  status: 200,
  response: pageOf(fileRecordSchema),
  handler: async (request) => paginate(request, { order: fileOrder, ...request.deps.data(request.tenant).files.list(request.query), toRecord: toFileRecord }),
});
