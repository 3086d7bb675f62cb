import type { RequestHandler } from 'express';

/**
 * docs/decisions.md#http-behaviour-and-secrets-at-rest: answers to API keys hold private data and presigned URLs, so no cache, shared or
 * the client's own, may keep them. (The dashboard's pages say the same in their security headers.)
 */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
