import { Prisma, type Project } from '../generated/prisma/client';
import { newId } from '../ids';
import { lockScopedRow, type TenantConn } from './connection';
import { caseInsensitive, sqlListing, type SqlSortField } from './listing';

export type ProjectSortField = 'createdAt' | 'updatedAt' | 'name';

/** The SQL of GET /projects's orders. An organization's projects are few: they are sorted, not walked along an index. */
export const PROJECT_SORT_KEYS: Record<ProjectSortField, SqlSortField> = {
  createdAt: { column: '"createdAt"', type: 'timestamptz' },
  updatedAt: { column: '"updatedAt"', type: 'timestamptz' },
  name: { column: 'name', type: 'text', key: caseInsensitive },
};

export type NewProject = Pick<Project, 'name' | 'description' | 'icon' | 'color'>;

/** The tenant's projects. */
export function projects({ conn, pool, scope }: TenantConn) {
  return {
    find: (id: string) => conn.project.findFirst({ where: { id, ...scope } }),
    /** Whether the id names one of the organization's projects of the other mode: a refusal then says so, the usual slip. */
    inOtherMode: async (id: string) => (await conn.project.count({ where: { id, organizationId: scope.organizationId, mode: { not: scope.mode } } })) > 0,
    /** Those of these ids that name the tenant's projects. */
    existingIds: async (ids: string[]) =>
      (await conn.project.findMany({ where: { id: { in: ids }, ...scope }, select: { id: true } })).map((project) => project.id),
    lock: (id: string) => lockScopedRow(conn, 'Project', scope, id),
    create: (project: NewProject) => conn.project.create({ data: { id: newId('project'), ...project, ...scope } }),
    update: (id: string, data: Prisma.ProjectUncheckedUpdateInput) => conn.project.update({ where: { id, ...scope }, data }),
    /** Deletes it with its tasks, their comments and its files (foreign-key cascade). */
    remove: (id: string) => conn.project.delete({ where: { id, ...scope } }),
    /** Where its files' bytes are kept, to remove them before the rows. */
    storageKeys: async (id: string) =>
      (await conn.file.findMany({ where: { projectId: id, ...scope }, select: { storageKey: true } })).map((file) => file.storageKey),
    list: ({ archived }: { archived: boolean }) => {
      const open = archived ? Prisma.empty : Prisma.sql` AND NOT archived`;
      const conditions = Prisma.sql`"organizationId" = ${scope.organizationId} AND mode = ${scope.mode}::"Mode"${open}`;
      return sqlListing<ProjectSortField, Project>(pool, 'Project', conditions, PROJECT_SORT_KEYS);
    },
  };
}
