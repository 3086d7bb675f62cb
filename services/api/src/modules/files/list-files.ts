import { scoped } from '@worktrack/db';
import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { fileRecordSchema, toFileRecord } from './file-record';
import { listFilesQuery } from './file-schemas';

export const listFiles = defineRoute({
  method: 'get',
  path: '/files',
  summary: 'List files',
  description: 'Newest first.',
  tag: 'Files',
  permission: 'files:read',
  query: listFilesQuery,
  status: 200,
  response: pageOf(fileRecordSchema),
  handler: async ({ query, tenant, deps }) => {
    const { limit, offset, projectId } = query;
    const where = scoped(tenant, projectId ? { projectId } : {});
    return paginate(
      { limit, offset },
      (window) => deps.db.file.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.file.count({ where }),
      toFileRecord,
    );
  },
});
