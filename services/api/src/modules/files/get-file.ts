import { defineRoute } from '../../http/route';
import { fileRecordSchema, fileResource, toFileRecord } from './file-record';
import { fileParams } from './file-schemas';

export const getFile = defineRoute({
  operationId: 'getFile',
  method: 'get',
  path: '/files/:fileId',
  summary: "Get a file's record",
  tag: 'Files',
  permission: 'files:read',
  params: fileParams,
  resource: fileResource,
  etag: true,
  status: 200,
  response: fileRecordSchema,
  handler: async ({ resource }) => toFileRecord(resource),
});
