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
  handler: async (request) => {
    const { query, tenant, deps } = request;
    return paginate(request, { order: fileOrder, ...deps.data(tenant).files.list(query), toRecord: toFileRecord });
  },
});
