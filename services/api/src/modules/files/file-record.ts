import Joi from 'joi';
import type { File } from '@worktrack/db';
import type { FileRecord } from '@worktrack/events';
import { out } from '../../http/record-fields';
import { defineResource } from '../../http/route';

export function toFileRecord(file: File): FileRecord {
  return {
    id: file.id,
    projectId: file.projectId,
    name: file.name,
    size: file.size,
    contentType: file.contentType,
    uploaderId: file.uploaderId,
    createdAt: file.createdAt.toISOString(),
  };
}

export const fileRecordSchema = Joi.object<FileRecord, true>({
  id: out.id('fil'),
  projectId: out.id('prj'),
  name: out.string().example('notes.txt'),
  size: Joi.number().integer().min(0).required().description('In bytes'),
  contentType: Joi.string().required().example('text/plain'),
  uploaderId: Joi.string().required(),
  createdAt: out.timestamp(),
}).id('FileRecord');

/** A presigned URL that downloads the file's bytes with its name and type. */
export interface FileDownload {
  url: string;
  expiresAt: string;
}

export const fileDownloadSchema = Joi.object<FileDownload, true>({
  url: Joi.string().uri().required(),
  expiresAt: out.timestamp().description('When the URL stops working'),
}).id('FileDownload');

export const fileResource = defineResource<File>({
  param: 'fileId',
  name: 'file',
  find: (data, id) => data.files.find(id),
  lockRow: (tx, id) => tx.files.lock(id),
  toRecord: toFileRecord,
});
