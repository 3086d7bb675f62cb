import { scoped } from '@worktrack/db';
import { envelope } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { toFileRecord } from './file-record';
import { listFilesQuery } from './file-schemas';

export const listFiles = defineRoute({
  method: 'get',
  path: '/files',
  permission: 'files:read',
  query: listFilesQuery,
  handler: async ({ query, tenant, deps }) => {
    const { limit, offset, projectId } = query;
    const where = scoped(tenant, projectId ? { projectId } : {});
    const [files, total] = await deps.db.$transaction([
      deps.db.file.findMany({ where, orderBy: { id: 'desc' }, take: limit, skip: offset }),
      deps.db.file.count({ where }),
    ]);
    return envelope(files.map(toFileRecord), total, { limit, offset });
  },
});
