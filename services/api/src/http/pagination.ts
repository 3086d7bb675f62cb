import Joi from 'joi';
import type { Scope } from '@worktrack/db';
import type { AppDeps } from '../deps';
import { cursorCodec, type Position } from './cursor';
import { invalid } from './errors';
import { parseSort, sortParam, type ListOrder, type Sort, type SortText } from './list-order';

const MAX_PAGE_SIZE = 100;

/** The parameters of every list (docs/decisions.md#limits, docs/decisions.md#pages-and-cursors): limit, then offset or cursor, and sort. */
export function pageQuery(order: ListOrder<string, never>) {
  return {
    limit: Joi.number().integer().min(1).max(MAX_PAGE_SIZE).default(50),
    offset: Joi.number().integer().min(0).description('Records to skip, default 0. Not with `cursor`.'),
    cursor: Joi.string()
      .max(4096)
      .description(
        "The previous page's `pagination.nextCursor`: the next page in the same order, with the same filters and sort, stable under concurrent inserts. Not with `offset`.",
      ),
    sort: sortParam(order),
  };
}

export interface PageParams<F extends string = string> {
  limit: number;
  offset?: number;
  cursor?: string;
  sort: SortText<F>;
}

export interface Envelope<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean; nextCursor: string | null };
}

/** One page to read: `take` rows in `sort` order, after a cursor's position or from `skip`. */
export interface Window<F extends string> {
  take: number;
  skip: number;
  after: Position | null;
  sort: Sort<F>;
}

/** What a list handler has of its request. */
export interface ListRequest<F extends string> {
  query: PageParams<F>;
  params: object;
  tenant: Scope;
  deps: Pick<AppDeps, 'config'>;
}

export interface Listing<F extends string, Row, Rec extends { id: string }> {
  order: ListOrder<F, Rec>;
  rows(window: Window<F>): Promise<Row[]>;
  total(): Promise<number>;
  toRecord(row: Row): Rec;
}

/** JSON with object keys sorted, so that equal filters give equal text. */
const canonical = (value: object) => JSON.stringify(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)));

/** What a list's cursors are bound to: the list, the tenant, its path parameters, sort and filters. */
export function cursorContext(list: string, tenant: Scope, params: object, sort: string, filters: object): string {
  return JSON.stringify([list, tenant.organizationId, tenant.mode, canonical(params), sort, canonical(filters)]);
}

/**
 * One page and the exact total, fetched concurrently on two pooled connections (no transaction: it
 * would serialize both queries for a total that is only ever a snapshot). One row beyond the page
 * tells whether another follows; if so, `nextCursor` seals the last record's position, bound to
 * the tenant, the list, its path parameters, filters and sort.
 */
export async function paginate<F extends string, Row, Rec extends { id: string }>(
  request: ListRequest<F>,
  listing: Listing<F, Row, Rec>,
): Promise<Envelope<Rec>> {
  const { limit, offset, cursor, sort: sortText, ...filters } = request.query;
  if (cursor !== undefined && offset !== undefined) throw invalid('cursor', 'cursor and offset cannot be combined: a cursor carries its own position');
  const codec = cursorCodec(request.deps.config.cursorSecret);
  const context = cursorContext(listing.order.name, request.tenant, request.params, sortText, filters);
  const after = cursor === undefined ? null : codec.open(cursor, context);
  const start = after?.offset ?? offset ?? 0;
  const sort = parseSort(sortText);

  const [rows, total] = await Promise.all([listing.rows({ take: limit + 1, skip: after ? 0 : start, after, sort }), listing.total()]);
  const data = rows.slice(0, limit).map(listing.toRecord);
  const last = data.at(-1);
  const nextCursor =
    rows.length > limit && last ? codec.seal({ value: listing.order.fields[sort.field].value(last), id: last.id, offset: start + data.length }, context) : null;
  return { data, pagination: { total, limit, offset: start, hasMore: nextCursor !== null, nextCursor } };
}

/** The response schema of a list: the contract's envelope (docs/decisions.md#pages-and-cursors) around `item`. */
export function pageOf<T>(item: Joi.ObjectSchema<T>): Joi.ObjectSchema<Envelope<T>> {
  return Joi.object<Envelope<T>, true>({
    data: Joi.array().items(item).required(),
    pagination: Joi.object({
      total: Joi.number().integer().min(0).required(),
      limit: Joi.number().integer().required(),
      offset: Joi.number().integer().required().description('Records before this page (for a cursor page, as counted while walking)'),
      hasMore: Joi.boolean().required(),
      nextCursor: Joi.string().allow(null).required().description('Pass it as `cursor` for the next page; null on the last page'),
    }).required(),
  });
}
