import Joi from 'joi';
import type { FileRecord } from '@worktrack/events';
import { creationOrder } from '../../http/list-order';
import { pageQuery, type PageParams } from '../../http/pagination';
import { fields } from '../../http/fields';

export const fileParams = Joi.object<{ fileId: string }, true>({ fileId: Joi.string().max(100).required() });
/** The uploaded file's name is the client's too: `filename*=UTF-8''...` can percent-encode a NUL, which Postgres refuses. */
export const uploadedFileName = Joi.object<{ file: string }, true>({ file: Joi.string().max(1024).required() });
export const uploadFields = Joi.object<{ projectId: string }, true>({ projectId: fields.ref().required() });
export const fileOrder = creationOrder<FileRecord>('files', '-createdAt');
export const listFilesQuery = Joi.object<PageParams<'createdAt'> & { projectId?: string }, true>({ projectId: fields.ref(), ...pageQuery(fileOrder) });

export const DOWNLOAD_URL_TTL_SECONDS = 15 * 60;
