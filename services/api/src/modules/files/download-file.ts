import { defineRoute } from '../../http/route';
import { findFile } from './find-file';
import { DOWNLOAD_URL_TTL_SECONDS, fileParams } from './file-schemas';

/** A presigned URL, valid 15 minutes, that downloads the bytes with the file's name and type. */
export const downloadFile = defineRoute({
  method: 'get',
  path: '/files/:fileId/download',
  permission: 'files:read',
  params: fileParams,
  handler: async ({ params, tenant, deps }) => {
    const file = await findFile(deps.db, tenant, params.fileId);
    const { url, expiresAt } = await deps.store.presignDownload(file.storageKey, {
      expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
      fileName: file.name,
      contentType: file.contentType,
    });
    return { url, expiresAt: expiresAt.toISOString() };
  },
});
