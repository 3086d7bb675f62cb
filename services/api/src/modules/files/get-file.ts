import { defineRoute } from '../../http/route';
import { findFile } from './find-file';
import { toFileRecord } from './file-record';
import { fileParams } from './file-schemas';

export const getFile = defineRoute({
  method: 'get',
  path: '/files/:fileId',
  permission: 'files:read',
  params: fileParams,
  handler: async ({ params, tenant, deps }) => toFileRecord(await findFile(deps.db, tenant, params.fileId)),
});
