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
