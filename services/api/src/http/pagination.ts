import Joi from 'joi';

export const MAX_PAGE_SIZE = 100;

/** limit and offset, shared by every list (DECISIONS §5). */
export const pageQuery = {
  limit: Joi.number().integer().min(1).max(MAX_PAGE_SIZE).default(50),
  offset: Joi.number().integer().min(0).default(0),
};

export interface Page {
  limit: number;
  offset: number;
}

export interface Envelope<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

export function envelope<T>(data: T[], total: number, page: Page): Envelope<T> {
  return { data, pagination: { total, limit: page.limit, offset: page.offset, hasMore: page.offset + data.length < total } };
}

/**
 * Fetches one page and the total matching count concurrently, on two pooled connections. No
 * transaction: it would serialize both queries and add two round trips for a total that is only
 * ever a snapshot.
 */
export async function paginate<Row, Rec>(
  page: Page,
  rows: (window: { take: number; skip: number }) => Promise<Row[]>,
  total: () => Promise<number>,
  toRecord: (row: Row) => Rec,
): Promise<Envelope<Rec>> {
  const [found, count] = await Promise.all([rows({ take: page.limit, skip: page.offset }), total()]);
  return envelope(found.map(toRecord), count, page);
}

/** The response schema of a list: SPEC's envelope around `item`. */
export function pageOf<T>(item: Joi.ObjectSchema<T>): Joi.ObjectSchema<Envelope<T>> {
  return Joi.object<Envelope<T>, true>({
    data: Joi.array().items(item).required(),
    pagination: Joi.object({
      total: Joi.number().integer().min(0).required(),
      limit: Joi.number().integer().required(),
      offset: Joi.number().integer().required(),
      hasMore: Joi.boolean().required(),
    }).required(),
  });
}
