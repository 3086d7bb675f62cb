import { Prisma } from '@worktrack/db';
import type { ProjectRecord } from '@worktrack/events';
import type { SqlSortField } from '../../http/keyset';
import { defineListOrder, type SortField } from '../../http/list-order';

export type ProjectSortField = 'createdAt' | 'updatedAt' | 'name';

/** The orders of GET /projects. An organization's projects are few: they are sorted, not walked along an index. */
export const projectOrder = defineListOrder<ProjectSortField, ProjectRecord, SortField<ProjectRecord> & SqlSortField>({
  name: 'projects',
  default: '-createdAt',
  fields: {
    createdAt: { value: (project) => project.createdAt, column: '"createdAt"', type: 'timestamptz' },
    updatedAt: { value: (project) => project.updatedAt, column: '"updatedAt"', type: 'timestamptz' },
    // Case-insensitive, by the Unicode root collation, as task titles.
    name: { value: (project) => project.name, column: 'name', type: 'text', key: (operand) => Prisma.sql`lower(${operand}) COLLATE "und-x-icu"` },
  },
});
