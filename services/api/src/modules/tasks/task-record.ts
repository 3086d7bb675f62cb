import Joi from 'joi';
import { Priority, TaskStatus, type Task } from '@worktrack/db';
import type { TaskRecord } from '@worktrack/events';
import { out } from '../../http/record-fields';
import { defineResource } from '../../http/route';
import { iso } from '../timestamps';

export function toTaskRecord(task: Task): TaskRecord {
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
  createdAt: out.timestamp(),
  updatedAt: out.timestamp(),
}).id('Task');

export const taskResource = defineResource<Task>({
  param: 'taskId',
  name: 'task',
  find: (data, id) => data.tasks.find(id),
  lockRow: (tx, id) => tx.tasks.lock(id),
  toRecord: toTaskRecord,
});
