// How every answer goes out: compressed when worth it, and never kept by a cache.
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';

/** docs/decisions.md#http-behaviour-and-secrets-at-rest: at or above this size, a response is compressed when the request accepts it. */
const COMPRESSION_THRESHOLD_BYTES = 1024;

const EVENT_STREAM = /^text\/event-stream\b/i;

/**
 * Never a partial response (206: its Content-Range counts the bytes of the file as stored) nor an
 * event stream (the compressor would hold events back until its buffer fills); otherwise whatever
 * the package deems compressible by its type (JSON, HTML, text, scripts, styles).
 */
function worthCompressing(req: Request, res: Response): boolean {
  if (res.statusCode === 206 || EVENT_STREAM.test(String(res.getHeader('Content-Type') ?? ''))) return false;
  return compression.filter(req, res);
}

/**
 * Compresses responses of 1 KiB or more with brotli (at quality 4, the package's default, cheap
 * enough per request) or gzip, as `Accept-Encoding` prefers, and adds `Vary: Accept-Encoding`.
 * Uploads are request bodies, which it leaves alone; downloads are presigned URLs to the store.
 */
export function compressResponses(): RequestHandler {
  return compression({ threshold: COMPRESSION_THRESHOLD_BYTES, filter: worthCompressing });
}

/**
 * docs/decisions.md#http-behaviour-and-secrets-at-rest: answers to API keys hold private data and presigned URLs, so no cache, shared or
 * the client's own, may keep them. (The dashboard's pages say the same in their security headers.)
 */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
