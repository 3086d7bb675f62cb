import express, { type RequestHandler } from 'express';
import { ApiError } from './errors';

const parseJson = express.json({ limit: '1mb' });

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/**
 * Parses JSON bodies and refuses any other media type on writes; multipart is left to the
 * routes that accept uploads. A write without a body is read as `{}`.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!hasBody(req.headers)) {
    req.body = {};
    return next();
  }
  if (req.is('multipart/form-data')) return next();
  // Only what express.json parses: an application/*+json body would be left unread, as if empty.
  if (!req.is('application/json')) {
    return next(new ApiError('unsupported_media_type', 'Request bodies must be application/json'));
  }
  parseJson(req, res, next);
};
