import { Prisma } from '@worktrack/db';
import type { TaskRecord } from '@worktrack/events';
import type { SqlSortField } from '../../http/keyset';
import { defineListOrder, type SortField } from '../../http/list-order';

/**
 * The orders of GET /tasks. Each field's SQL key, followed by the id, is the tail of an index per
 * project and one across the tenant (schema.prisma; the expressions in migration
 * 20261122152729_list_orders, which must stay identical to these), so no order sorts the project.
 */
export type TaskSortField = 'createdAt' | 'updatedAt' | 'dueDate' | 'priority' | 'title' | 'status';

export const taskOrder = defineListOrder<TaskSortField, TaskRecord, SortField<TaskRecord> & SqlSortField>({
  name: 'tasks',
  default: '-createdAt',
  fields: {
    createdAt: { value: (task) => task.createdAt, column: '"createdAt"', type: 'timestamptz' },
    updatedAt: { value: (task) => task.updatedAt, column: '"updatedAt"', type: 'timestamptz' },
    // Tasks without a due date come last in either direction.
    dueDate: {
      value: (task) => task.dueDate,
      column: '"dueDate"',
      type: 'timestamptz',
      key: (operand, descending) => Prisma.sql`COALESCE(${operand}, ${Prisma.raw(descending ? "'-infinity'" : "'infinity'")}::timestamptz)`,
    },
    // Enums sort in their declared order: low < medium < high, todo < in_progress < done.
    priority: { value: (task) => task.priority, column: 'priority', type: '"Priority"' },
    status: { value: (task) => task.status, column: 'status', type: '"TaskStatus"' },
    // Case-insensitive, by the Unicode root collation.
    title: { value: (task) => task.title, column: 'title', type: 'text', key: (operand) => Prisma.sql`lower(${operand}) COLLATE "und-x-icu"` },
  },
});
