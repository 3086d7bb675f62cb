import type { TaskSortField } from '@worktrack/db';
import type { TaskRecord } from '@worktrack/events';
import { defineListOrder } from '../../http/list-order';

export type { TaskSortField };

/** The orders of GET /tasks: each field's value in a record; their SQL is the data layer's (`TASK_SORT_KEYS`). */
export const taskOrder = defineListOrder<TaskSortField, TaskRecord>({
  name: 'tasks',
  default: '-createdAt',
  fields: {
    createdAt: { value: (task) => task.createdAt },
    updatedAt: { value: (task) => task.updatedAt },
    dueDate: { value: (task) => task.dueDate },
    priority: { value: (task) => task.priority },
    status: { value: (task) => task.status },
    title: { value: (task) => task.title },
  },
});
