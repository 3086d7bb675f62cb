import type { ProjectSortField } from '@worktrack/db';
import type { ProjectRecord } from '@worktrack/events';
import { defineListOrder } from '../../http/list-order';

export type { ProjectSortField };

/** The orders of GET /projects: each field's value in a record; their SQL is the data layer's (`PROJECT_SORT_KEYS`). */
export const projectOrder = defineListOrder<ProjectSortField, ProjectRecord>({
  name: 'projects',
  default: '-createdAt',
  fields: {
    createdAt: { value: (project) => project.createdAt },
    updatedAt: { value: (project) => project.updatedAt },
    name: { value: (project) => project.name },
  },
});
