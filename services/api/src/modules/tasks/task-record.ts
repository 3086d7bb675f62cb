import type { Task } from '@worktrack/db';
import type { TaskRecord } from '@worktrack/events';
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
