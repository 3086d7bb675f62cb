import type { File } from '../generated/prisma/client';
import { lockScopedRow, type TenantConn } from './connection';
import { prismaWindow, type PageWindow } from './listing';

/** The tenant's files (their rows; the bytes are in the object store). */
export function files({ conn, scope }: TenantConn) {
  return {
    find: (id: string) => conn.file.findFirst({ where: { id, ...scope } }),
    lock: (id: string) => lockScopedRow(conn, 'File', scope, id),
    create: (file: Omit<File, 'organizationId' | 'mode' | 'createdAt'>) => conn.file.create({ data: { ...file, ...scope } }),
    remove: (id: string) => conn.file.delete({ where: { id, ...scope } }),
    list: ({ projectId }: { projectId?: string }) => {
      const where = { ...scope, ...(projectId && { projectId }) };
      return {
        rows: (window: PageWindow<'createdAt'>) => conn.file.findMany(prismaWindow(where, window)),
        total: () => conn.file.count({ where }),
      };
    },
  };
}
