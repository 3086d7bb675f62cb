import type { Project } from '@worktrack/db';
import type { ProjectRecord } from '@worktrack/events';
import { iso } from '../timestamps';

export function toProjectRecord(project: Project): ProjectRecord {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    icon: project.icon,
    color: project.color,
    archived: project.archived,
    archivedAt: iso(project.archivedAt),
    createdAt: project.createdAt.toISOString(),
    updatedAt: project.updatedAt.toISOString(),
  };
}
