import Joi from 'joi';
import { TaskStatus, Priority } from '@worktrack/db';
import { fields } from '../../http/validation';
import { pageQuery } from '../../http/pagination';

const title = Joi.string().trim().min(1).max(500);
const description = Joi.string().max(10_000).allow(null);
const status = Joi.string().valid(...Object.values(TaskStatus));
const priority = Joi.string().valid(...Object.values(Priority));
const customFields = Joi.object()
  .pattern(/^.{1,100}$/, Joi.alternatives(Joi.string().max(10_000), Joi.number(), Joi.boolean(), Joi.valid(null)))
  .max(50);

export type CustomFields = Record<string, string | number | boolean | null>;

export interface TaskInput {
  title: string;
  projectId: string;
  description?: string | null;
  status?: TaskStatus;
  priority?: Priority;
  assigneeId?: string | null;
  dueDate?: string | null;
  customFields?: CustomFields | null;
}

export type TaskPatch = Partial<Omit<TaskInput, 'projectId'>>;

export const taskParams = Joi.object<{ taskId: string }>({ taskId: Joi.string().max(100).required() });

export const createTaskBody = Joi.object<TaskInput>({
  title: title.required(),
  projectId: fields.ref().required(),
  description,
  status,
  priority,
  assigneeId: fields.ref().allow(null),
  dueDate: fields.timestamp().allow(null),
  customFields,
});

export const updateTaskBody = Joi.object<TaskPatch>({
  title,
  description,
  status,
  priority,
  assigneeId: fields.ref().allow(null),
  dueDate: fields.timestamp().allow(null),
  customFields: customFields.allow(null),
});

export interface TaskFilters {
  projectId?: string;
  status?: TaskStatus;
  assigneeId?: string;
  priority?: Priority;
  limit: number;
  offset: number;
}

export const listTasksQuery = Joi.object<TaskFilters>({
  projectId: fields.ref(),
  status,
  assigneeId: fields.ref(),
  priority,
  ...pageQuery,
});
