import { monotonicFactory } from 'ulid';

/** Monotonic within a process, so ids made in the same millisecond still sort in creation order. */
const ulid = monotonicFactory();

/** The one table of id prefixes (DECISIONS: ids are a type prefix plus a sortable ULID). */
export const ID_PREFIXES = {
  organization: 'org',
  user: 'usr',
  apiKey: 'key',
  project: 'prj',
  task: 'tsk',
  comment: 'cmt',
  file: 'fil',
  webhook: 'whk',
  event: 'evt',
  delivery: 'dlv',
  attempt: 'att',
  invitation: 'inv',
  dashboardLink: 'dsl',
  dashboardSession: 'dss',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}
