import { newId } from '@worktrack/db';
import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { fileRecordSchema, toFileRecord } from './file-record';
import { uploadFields, uploadedFileName } from './file-schemas';
import { receiveUpload } from './receive-upload';

export const uploadFile = defineRoute({
  operationId: 'uploadFile',
  method: 'post',
  path: '/files',
  summary: 'Upload a file',
  description:
    'multipart/form-data with exactly one file part, `file`, and the text field `projectId` (a project that is not archived). ' +
    'The bytes are streamed to the object store; over the upload limit (`MAX_UPLOAD_BYTES`) the answer is 413 and nothing is kept. ' +
    'An `Idempotency-Key` identifies the upload whatever its bytes.',
  tag: 'Files',
  permission: 'files:write',
  multipart: {
    fields: uploadFields,
    file: 'file',
    fileName: uploadedFileName,
    receive: async ({ req, res, tenant, deps }) => {
      if (!req || !res) throw new Error('An upload arrives over HTTP');
      const id = newId('file');
      const storageKey = `${tenant.organizationId}/${tenant.mode}/${id}`;
      const file = await receiveUpload(req, res, { store: deps.store, storageKey, maxBytes: deps.config.maxUploadBytes });
      return { id, storageKey, file, fields: req.body, discard: () => deps.store.delete(storageKey).catch(() => undefined) };
    },
  },
  references: (body) => ({ projectId: body.projectId }),
  status: 201,
  response: fileRecordSchema,
  handler: async ({ body, upload, tenant, commit }) => {
    const { id, storageKey, file } = upload!;
    return commit(async (tx) => {
      const row = await tx.files.create({
        id,
        projectId: body.projectId,
        name: file!.originalname,
        size: file!.size,
        contentType: file!.mimetype || 'application/octet-stream',
        storageKey,
        uploaderId: tenant.userId,
      });
      const record = toFileRecord(row);
      return { result: record, events: [events.fileUploaded(record)] };
    });
  },
});
