import { defineRoute } from '../../http/route';
import { fileDownloadSchema, fileResource } from './file-record';
import { DOWNLOAD_URL_TTL_SECONDS, fileParams } from './file-schemas';

/** A presigned URL, valid 15 minutes, that downloads the bytes with the file's name and type. */
export const downloadFile = defineRoute({
  operationId: 'getFileDownloadUrl',
  method: 'get',
  path: '/files/:fileId/download',
  summary: "Get a download URL for a file's bytes",
  description: "A presigned URL, valid 15 minutes, that downloads the bytes with the file's name and content type; it needs no API key.",
  tag: 'Files',
  permission: 'files:read',
  params: fileParams,
  resource: fileResource,
  status: 200,
  response: fileDownloadSchema,
  handler: async ({ resource: file, deps }) => {
    const { url, expiresAt } = await deps.store.presignDownload(file.storageKey, {
      expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
      fileName: file.name,
      contentType: file.contentType,
    });
    return { url, expiresAt: expiresAt.toISOString() };
  },
});
