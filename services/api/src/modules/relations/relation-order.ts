import type { RelationSortField } from '@worktrack/db';
import { defineListOrder } from '../../http/list-order';
import type { RelationRecord } from './relation-record';

/** The order of GET /tasks/{taskId}/relations; its SQL is the data layer's (`RELATION_SORT_KEYS`). */
export const relationOrder = defineListOrder<RelationSortField, RelationRecord>({
  name: 'relations',
  default: 'createdAt',
  fields: { createdAt: { value: (relation) => relation.createdAt } },
});
