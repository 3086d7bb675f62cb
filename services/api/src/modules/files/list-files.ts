import { scoped } from '@worktrack/db';
import { paginate } from '../../http/pagination';
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
    return paginate(
      { limit, offset },
      (window) => deps.db.file.findMany({ where, orderBy: { id: 'desc' }, ...window }),
      () => deps.db.file.count({ where }),
      toFileRecord,
    );
  },
});
