import type { LabelSortField } from '@worktrack/db';
import type { LabelRecord } from '@worktrack/events';
import { defineListOrder } from '../../http/list-order';

/** The order of GET /labels; its SQL is the data layer's (`LABEL_SORT_KEYS`). */
export const labelOrder = defineListOrder<LabelSortField, LabelRecord>({
  name: 'labels',
  default: '-createdAt',
  fields: { createdAt: { value: (label) => label.createdAt } },
});
