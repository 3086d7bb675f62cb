import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

/**
 * ulid draws one random byte per character, by default one crypto call each: 16 calls, 26-47 µs an
 * id here. The same bytes drawn from the kernel's generator a pool at a time cost 6 µs an id.
 */
const pool = Buffer.alloc(4096);
let drawn = pool.length;
function pooledRandom(): number {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  return pool[drawn++]! / 256;
}

/** Monotonic within a process, so ids made in the same millisecond still sort in creation order. */
const ulid = monotonicFactory(pooledRandom);

/** The one table of id prefixes (docs/decisions.md#ids-and-timestamps: ids are a type prefix plus a sortable ULID). */
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
  label: 'lbl',
  relation: 'rel',
  dashboardLink: 'dsl',
  dashboardSession: 'dss',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}

/**
 * The lowest id of this kind that can be made at `time`: every id made before it sorts below it, so
 * a range of the primary key is a range of creation times (ULIDs start with their millisecond).
 */
export function idBoundaryAt(kind: IdKind, time: Date): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(time.getTime(), 10)}`;
}
