import type { Express } from 'express';
import { as } from './api-harness';

/**
 * Reads a whole list page by page, following `pagination.nextCursor` to its end, and checks on the
 * way that every page reports as its offset the number of records before it.
 */
export async function walk<T = Record<string, unknown>>(app: Express, key: string, path: string, query = '', limit = 100): Promise<T[]> {
  const records: T[] = [];
  const base = `${path}?${query ? `${query}&` : ''}limit=${limit}`;
  for (let url = base; ; ) {
    const res = await as(app, key).get(url);
    if (res.status !== 200) throw new Error(`GET ${url} → ${res.status} ${JSON.stringify(res.body)}`);
    expect(res.body.pagination.offset).toBe(records.length);
    records.push(...(res.body.data as T[]));
    const next: string | null = res.body.pagination.nextCursor;
    expect(res.body.pagination.hasMore).toBe(next !== null);
    if (next === null) return records;
    url = `${base}&cursor=${encodeURIComponent(next)}`;
  }
}
