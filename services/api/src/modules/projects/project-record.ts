import Joi from 'joi';
import type { Project } from '@worktrack/db';
import type { ProjectRecord } from '@worktrack/events';
import { out } from '../../http/record-fields';
import { defineResource } from '../../http/route';
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

export const projectRecordSchema = Joi.object<ProjectRecord, true>({
  id: out.id('prj'),
  name: Joi.string().required().example('Website relaunch'),
  description: out.nullableString(),
  icon: Joi.string().allow(null).required(),
  color: Joi.string().allow(null).required().example('#1a2b3c'),
  archived: Joi.boolean().required(),
  archivedAt: out.nullableTimestamp(),
  createdAt: out.timestamp(),
  updatedAt: out.timestamp(),
}).id('Project');

export const projectResource = defineResource<Project>({
  param: 'projectId',
  name: 'project',
  find: (data, id) => data.projects.find(id),
  lockRow: (tx, id) => tx.projects.lock(id),
  toRecord: toProjectRecord,
});
