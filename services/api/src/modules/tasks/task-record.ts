import Joi from 'joi';
import { Priority, TaskStatus, type TaskRow } from '@worktrack/db';
import type { TaskRecord } from '@worktrack/events';
import { out } from '../../http/record-fields';
import { defineResource } from '../../http/route';
import { iso } from '../timestamps';

export function toTaskRecord(task: TaskRow): TaskRecord {
  return {
    id: task.id,
    title: task.title,
    description: task.description,
    status: task.status,
    priority: task.priority,
    projectId: task.projectId,
    assigneeId: task.assigneeId,
    creatorId: task.creatorId,
    dueDate: iso(task.dueDate),
    customFields: (task.customFields ?? {}) as Record<string, unknown>,
    labelIds: task.labelIds,
    parentId: task.parentId,
    subtasks: task.subtasks,
    createdAt: task.createdAt.toISOString(),
    updatedAt: task.updatedAt.toISOString(),
  };
}

export const taskRecordSchema = Joi.object<TaskRecord, true>({
  id: out.id('tsk'),
  title: Joi.string().required().example('Write the launch post'),
  description: out.nullableString(),
  status: Joi.string()
    .valid(...Object.values(TaskStatus))
    .required(),
  priority: Joi.string()
    .valid(...Object.values(Priority))
    .required(),
  projectId: out.id('prj'),
  assigneeId: Joi.string().allow(null).required(),
  creatorId: Joi.string().required(),
  dueDate: out.nullableTimestamp(),
  customFields: Joi.object()
    .pattern(/^.{1,100}$/, Joi.alternatives(Joi.string(), Joi.number(), Joi.boolean(), Joi.valid(null)))
    .required(),
  labelIds: Joi.array().items(Joi.string()).required().description('Its labels, by id (docs/decisions.md#labels)').example(['lbl_01JD2X5K8Y3V4M7N9P0Q1R2S3T']),
  parentId: Joi.string().allow(null).required().description('The task it is a sub-task of, in the same project'),
  subtasks: Joi.object({ total: Joi.number().integer().required(), done: Joi.number().integer().required() })
    .required()
    .description('Its direct children, and how many of them are done'),
  createdAt: out.timestamp(),
  updatedAt: out.timestamp(),
}).id('Task');

export const taskResource = defineResource<TaskRow>({
  param: 'taskId',
  name: 'task',
  find: (data, id) => data.tasks.find(id),
  lockRow: (tx, id) => tx.tasks.lock(id),
  toRecord: toTaskRecord,
});
