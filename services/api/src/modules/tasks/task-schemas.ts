import Joi from 'joi';
import { Priority, TaskStatus, type TaskFilter } from '@worktrack/db';
import { fields } from '../../http/fields';
import { pageQuery, type PageParams } from '../../http/pagination';
import { taskOrder, type TaskSortField } from './task-order';

const title = Joi.string().trim().min(1).max(500);
const description = Joi.string().max(10_000).allow(null);
const status = Joi.string().valid(...Object.values(TaskStatus));
const priority = Joi.string().valid(...Object.values(Priority));
const customFields = Joi.object()
  .pattern(/^.{1,100}$/, Joi.alternatives(Joi.string().max(10_000), Joi.number(), Joi.boolean(), Joi.valid(null)))
  .max(50);

/** Up to 20 distinct labels of the organization (docs/decisions.md#labels), kept in id order. */
const labelIds = fields.refSet(20).description("Up to 20 distinct labels of the organization; replaces the task's labels");
const parentId = fields.ref().allow(null).description('A task of the same project; null detaches it. Trees stop at 5 levels.');

export type CustomFields = Record<string, string | number | boolean | null>;

export interface TaskInput {
  title: string;
  projectId: string;
  description?: string | null;
  status?: TaskStatus;
  priority?: Priority;
  assigneeId?: string | null;
  dueDate?: string | null;
  customFields?: CustomFields;
  labelIds?: string[];
  parentId?: string | null;
}

/** A change to a task: null custom fields clear them all. */
export type TaskPatch = Partial<Omit<TaskInput, 'projectId' | 'customFields'>> & { customFields?: CustomFields | null };

export const taskParams = Joi.object<{ taskId: string }, true>({ taskId: Joi.string().max(100).required() });

export const createTaskBody = Joi.object<TaskInput, true>({
  title: title.required(),
  projectId: fields.ref().required(),
  description,
  status,
  priority,
  assigneeId: fields.ref().allow(null),
  dueDate: fields.timestamp().allow(null),
  customFields,
  labelIds,
  parentId,
});

export const updateTaskBody = Joi.object<TaskPatch, true>({
  title,
  description,
  status,
  priority,
  assigneeId: fields.ref().allow(null),
  dueDate: fields.timestamp().allow(null),
  customFields: customFields.allow(null),
  labelIds,
  parentId,
});

/** The filters of GET /tasks are the data layer's (`TaskFilter`), with a page's parameters. */
export interface TaskFilters extends PageParams<TaskSortField>, TaskFilter {}

export const listTasksQuery = Joi.object<TaskFilters, true>({
  projectId: fields.ref(),
  status: fields.list(status).description('One or more, comma-separated'),
  priority: fields.list(priority).description('One or more, comma-separated'),
  assigneeId: fields.list(fields.ref()).description('Member ids, comma-separated; `none` for unassigned tasks'),
  dueBefore: fields.timestamp().description('Tasks due before this instant (tasks without a due date are left out)'),
  dueAfter: fields.timestamp().description('Tasks due after this instant (tasks without a due date are left out)'),
  updatedSince: fields.timestamp().description('Tasks last changed at or after this instant'),
  createdSince: fields.timestamp().description('Tasks created at or after this instant'),
  q: Joi.string()
    .trim()
    .min(1)
    .max(200)
    .description('Words to find in the title and description, ignoring case and accents: every word must begin a word of either'),
  labelId: fields.list(fields.ref()).description('Label ids, comma-separated: tasks carrying any of them'),
  parentId: fields.ref().description("A task's id: its sub-tasks"),
  topLevel: Joi.boolean().description('`true`: only tasks without a parent'),
  ...pageQuery(taskOrder),
});
