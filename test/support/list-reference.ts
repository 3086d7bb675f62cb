import type { TaskRecord } from '@worktrack/events';

/** Lists, and GET /tasks's filters, as docs/decisions.md#lists describes them, computed here to check the API against. */

export type SortField = 'createdAt' | 'updatedAt' | 'dueDate' | 'priority' | 'title' | 'status';
export const SORT_FIELDS: SortField[] = ['createdAt', 'updatedAt', 'dueDate', 'priority', 'title', 'status'];

const RANK: Record<string, number> = { low: 0, medium: 1, high: 2, todo: 0, in_progress: 1, done: 2 };
const TEXT = new Set(['title', 'name']);
const collator = new Intl.Collator('und');

/**
 * A list's order by one field, of any list: text without case, enums in their declared order,
 * timestamps in time, an unset value (a task without a due date) last either way; ties by id.
 */
export function inOrder<T extends { id: string }>(field: string, descending: boolean): (a: T, b: T) => number {
  const fieldOf = (record: T) => (record as unknown as Record<string, string | null>)[field] ?? null;
  const byField = (a: T, b: T): number => {
    const [x, y] = [fieldOf(a) as string, fieldOf(b) as string];
    if (TEXT.has(field)) return collator.compare(x.toLowerCase(), y.toLowerCase());
    if (x in RANK) return RANK[x]! - RANK[y]!;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return (a, b) => {
    if ((fieldOf(a) === null) !== (fieldOf(b) === null)) return fieldOf(a) === null ? 1 : -1;
    const ascending = byField(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return descending ? -ascending : ascending;
  };
}

export interface TaskFilters {
  projectId?: string;
  status?: string[];
  priority?: string[];
  assigneeId?: string[];
  dueBefore?: string;
  dueAfter?: string;
  updatedSince?: string;
  createdSince?: string;
  q?: string;
}

/** Lower case, accents off. */
const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const wordsOf = (text: string) =>
  fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
const time = (timestamp: string) => new Date(timestamp).getTime();

/** Every filter given holds: lists match any of their values, `none` an unassigned task, each word of q the start of a word. */
export function matchesFilters(task: TaskRecord, filters: TaskFilters): boolean {
  const due = task.dueDate === null ? null : time(task.dueDate);
  const words = wordsOf(`${task.title} ${task.description ?? ''}`);
  return (
    (filters.projectId === undefined || task.projectId === filters.projectId) &&
    (filters.status === undefined || filters.status.includes(task.status)) &&
    (filters.priority === undefined || filters.priority.includes(task.priority)) &&
    (filters.assigneeId === undefined || filters.assigneeId.includes(task.assigneeId ?? 'none')) &&
    (filters.dueBefore === undefined || (due !== null && due < time(filters.dueBefore))) &&
    (filters.dueAfter === undefined || (due !== null && due > time(filters.dueAfter))) &&
    (filters.updatedSince === undefined || time(task.updatedAt) >= time(filters.updatedSince)) &&
    (filters.createdSince === undefined || time(task.createdAt) >= time(filters.createdSince)) &&
    (filters.q === undefined || wordsOf(filters.q).every((word) => words.some((w) => w.startsWith(word))))
  );
}

/** The query string of the filters, lists comma-separated. */
export const filterQuery = (filters: TaskFilters) =>
  Object.entries(filters)
    .map(([name, value]) => `${name}=${encodeURIComponent(Array.isArray(value) ? value.join(',') : String(value))}`)
    .join('&');
