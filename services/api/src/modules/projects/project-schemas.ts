import Joi from 'joi';
import { pageQuery, type PageParams } from '../../http/pagination';
import { projectOrder, type ProjectSortField } from './project-order';
import { nameString } from '../../http/names';

const name = nameString(200);
const description = Joi.string().max(10_000).allow(null);
const icon = Joi.string().trim().min(1).max(64).allow(null);
const color = Joi.string()
  .pattern(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/)
  .allow(null)
  .messages({ 'string.pattern.base': 'color must be a hex color such as #1a2b3c or #abc' });

export interface ProjectInput {
  name: string;
  description?: string | null;
  icon?: string | null;
  color?: string | null;
}

export interface ProjectPatch extends Partial<ProjectInput> {
  archived?: boolean;
}

export const projectParams = Joi.object<{ projectId: string }, true>({ projectId: Joi.string().max(100).required() });

export const createProjectBody = Joi.object<ProjectInput, true>({ name: name.required(), description, icon, color });

export const updateProjectBody = Joi.object<ProjectPatch, true>({ name, description, icon, color, archived: Joi.boolean().strict() });

export interface ProjectFilters extends PageParams<ProjectSortField> {
  archived: boolean;
}

export const listProjectsQuery = Joi.object<ProjectFilters, true>({
  archived: Joi.boolean().default(false),
  ...pageQuery(projectOrder),
});
