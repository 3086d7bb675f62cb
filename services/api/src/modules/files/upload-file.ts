import { newId } from '@worktrack/db';
import { events } from '@worktrack/events';
import { invalid } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { validate } from '../../http/validation';
import { assertProjectOpen } from '../projects/assert-project-open';
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
  multipart: { fields: uploadFields, file: 'file' },
  status: 201,
  response: fileRecordSchema,
  handler: async ({ req, res, tenant, deps }) => {
    const id = newId('file');
    const storageKey = `${tenant.organizationId}/${tenant.mode}/${id}`;
    const file = await receiveUpload(req, res, { store: deps.store, storageKey, maxBytes: deps.config.maxUploadBytes });
    try {
      if (!file) throw invalid('file', 'Missing required field: file');
      validate(uploadedFileName, { file: file.originalname });
      const fields = validate(uploadFields, req.body ?? {});
      return await deps.data(tenant).commitWithEvents(async (tx) => {
        await assertProjectOpen(tx, fields.projectId, tenant.mode);
        const row = await tx.files.create({
          id,
          projectId: fields.projectId,
          name: file.originalname,
          size: file.size,
          contentType: file.mimetype || 'application/octet-stream',
          storageKey,
          uploaderId: tenant.userId,
        });
        const record = toFileRecord(row);
        return { result: record, events: [events.fileUploaded(record)] };
      });
    } catch (err) {
      if (file) await deps.store.delete(storageKey).catch(() => undefined);
      throw err;
    }
  },
});
