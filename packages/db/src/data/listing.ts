import { Prisma } from '../generated/prisma/client';
import { queryOnPool, type SqlPool } from '../client';

/** One page to read: `take` rows in `sort` order, after a cursor's position or from `skip`. */
export interface PageWindow<F extends string> {
  take: number;
  skip: number;
  after: { value: string | null; id: string } | null;
  sort: { field: F; descending: boolean };
}

/** A list's rows, a window at a time, and its exact total: what the API's `paginate` reads. */
export interface RowSource<F extends string, Row> {
  rows(window: PageWindow<F>): Promise<Row[]>;
  total(): Promise<number>;
}

/**
 * How a field sorts in SQL: its column, the SQL type of a cursor's value for it, and the sort key
 * computed from either (the column itself unless `key` says otherwise). For an order to need no
 * sort step, `(key(column), id)` must be the tail of an index, expression included.
 */
export interface SqlSortField {
  column: string;
  type: string;
  key?: (operand: Prisma.Sql, descending: boolean) => Prisma.Sql;
}

/** Case-insensitive, by the Unicode root collation (task titles, project names). */
export const caseInsensitive = (operand: Prisma.Sql) => Prisma.sql`lower(${operand}) COLLATE "und-x-icu"`;

/**
 * Keyset pagination in SQL: a page of a table's rows in the window's order, after the cursor's
 * position, `(key, id) > (key of the cursor's value, its id)` (`<` descending): one row comparison
 * that an index scan starts from, then the ORDER BY that walks that index. A row inserted behind the
 * position is not returned, and none ahead of it is skipped, whatever is inserted or deleted meanwhile.
 */
export function pageSql(table: string, conditions: Prisma.Sql, field: SqlSortField, window: PageWindow<string>): Prisma.Sql {
  const { sort, after } = window;
  const key = (operand: Prisma.Sql) => field.key?.(operand, sort.descending) ?? operand;
  const rowKey = key(Prisma.raw(field.column));
  const direction = Prisma.raw(sort.descending ? 'DESC' : 'ASC');
  const beyond = after
    ? Prisma.sql`(${rowKey}, id) ${Prisma.raw(sort.descending ? '<' : '>')} (${key(Prisma.sql`${after.value}::${Prisma.raw(field.type)}`)}, ${after.id})`
    : Prisma.sql`TRUE`;
  return Prisma.sql`SELECT * FROM ${Prisma.raw(`"${table}"`)} WHERE ${conditions} AND ${beyond} ORDER BY ${rowKey} ${direction}, id ${direction} LIMIT ${window.take} OFFSET ${window.skip}`;
}

/**
 * A table's rows that meet the conditions, read in SQL on the pool (through Prisma's `$queryRaw` a
 * list request cost 40% more Node CPU).
 */
export function sqlListing<F extends string, Row>(pool: SqlPool, table: string, conditions: Prisma.Sql, fields: Record<F, SqlSortField>) {
  return {
    rows: (window: PageWindow<F>) => queryOnPool<Row>(pool, pageSql(table, conditions, fields[window.sort.field], window)),
    total: async () =>
      (await queryOnPool<{ total: number }>(pool, Prisma.sql`SELECT count(*)::int AS total FROM ${Prisma.raw(`"${table}"`)} WHERE ${conditions}`))[0]!.total,
  };
}

type Direction = 'asc' | 'desc';
type Bound = { lt?: Date; lte?: Date; gt?: Date; gte?: Date };

/**
 * The same for a list read through Prisma: findMany's arguments for a window of the rows that meet
 * `where`, sorted by a timestamp column named as the sort field, with `tie` (a unique column)
 * breaking ties.
 */
export function prismaWindow<W extends object, C extends string, T extends string = 'id'>(where: W, window: PageWindow<C>, tie = 'id' as T) {
  const { sort, after, take, skip } = window;
  const column = sort.field;
  const direction: Direction = sort.descending ? 'desc' : 'asc';
  const orderBy = [{ [column]: direction } as Record<C, Direction>, { [tie]: direction } as Record<T, Direction>];
  return { where: { AND: [where, ...(after?.value ? keyset(column, tie, sort.descending, new Date(after.value), after.id) : [])] }, orderBy, take, skip };
}

/**
 * Beyond a position, as Prisma can say it: at or beyond its time (the bound an index scan starts
 * from), and beyond it (a later time, or the same time and a later tie).
 */
function keyset<C extends string, T extends string>(column: C, tie: T, descending: boolean, value: Date, id: string) {
  const beyond = descending ? 'lt' : 'gt';
  return [
    { [column]: { [`${beyond}e`]: value } } as Record<C, Bound>,
    {
      OR: [
        { [column]: { [beyond]: value } } as Record<C, Bound>,
        { [column]: value, [tie]: { [beyond]: id } } as Record<C, Date> & Record<T, { lt?: string; gt?: string }>,
      ],
    },
  ];
}
