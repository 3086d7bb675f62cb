import type { Request, Response } from 'express';
import type multer from 'multer';
import type { ObjectStore } from '@worktrack/storage';
import { ApiError, invalid } from '../../http/errors';
import { s3StorageEngine } from './s3-storage-engine';

const MULTER_ERRORS: Record<string, (err: multer.MulterError, limit: number) => ApiError> = {
  LIMIT_FILE_SIZE: (_err, limit) => new ApiError('payload_too_large', `The file exceeds the upload limit of ${limit} bytes`, 'file'),
  LIMIT_UNEXPECTED_FILE: (err) => invalid(err.field ?? 'file', `Unexpected file part ${err.field ?? ''}; send exactly one part named "file"`.trim()),
  LIMIT_FILE_COUNT: () => invalid('file', 'Send exactly one part named "file"'),
  LIMIT_FIELD_COUNT: () => invalid(null, 'Too many form fields'),
  LIMIT_PART_COUNT: () => invalid(null, 'Too many form parts'),
  LIMIT_FIELD_VALUE: (err) => invalid(err.field ?? null, 'Form field value too long'),
  LIMIT_FIELD_KEY: () => invalid(null, 'Form field name too long'),
};

/** multer, and busboy and the MIME tables under it, loaded at the first upload: most API processes never receive a file. */
let loaded: typeof multer | undefined;
const multerModule = () => (loaded ??= require('multer') as typeof multer);

function toApiError(err: unknown, limit: number): unknown {
  if (err instanceof multerModule().MulterError) return MULTER_ERRORS[err.code]?.(err, limit) ?? invalid(null, err.message);
  // Busboy's complaints about a malformed body (no boundary, truncated form) are the client's.
  if (err instanceof Error && /^(Multipart|Unexpected end of form|Malformed)/i.test(err.message))
    return invalid(null, `Malformed multipart body: ${err.message}`);
  return err;
}

/**
 * Streams the request's single `file` part straight into the object store under `storageKey`
 * (never holding it whole in memory) and returns the parsed text fields. Over the size limit,
 * multer aborts and the partial object is removed.
 */
export function receiveUpload(
  req: Request,
  res: Response,
  options: { store: ObjectStore; storageKey: string; maxBytes: number },
): Promise<Express.Multer.File | undefined> {
  const upload = multerModule()({
    storage: s3StorageEngine({ store: options.store, keyFor: () => options.storageKey }),
    limits: { fileSize: options.maxBytes, files: 1, fields: 10, parts: 11, fieldSize: 1024 },
    defParamCharset: 'utf8',
  }).single('file');
  return new Promise((resolve, reject) => {
    upload(req, res, (err?: unknown) => (err ? reject(toApiError(err, options.maxBytes)) : resolve(req.file)));
  });
}
