import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import type { ObjectStore } from '@worktrack/storage';

declare global {
  namespace Express {
    namespace Multer {
      interface File {
        /** Object key of an upload handled by s3StorageEngine. */
        storageKey: string;
      }
    }
  }
}

export interface S3StorageEngineOptions {
  store: Pick<ObjectStore, 'upload' | 'delete'>;
  keyFor(req: Request, file: Express.Multer.File): string;
}

/**
 * Streams each uploaded file straight into the object store. When multer aborts a request
 * (e.g. LIMIT_FILE_SIZE, which truncates the stream), it hands the stored file back to
 * `_removeFile`, which deletes the object.
 */
export function s3StorageEngine({ store, keyFor }: S3StorageEngineOptions): StorageEngine {
  async function storeFile(req: Request, file: Express.Multer.File) {
    const storageKey = keyFor(req, file);
    const { size } = await store.upload(storageKey, file.stream, file.mimetype);
    return { size, storageKey };
  }

  return {
    _handleFile(req, file, callback) {
      storeFile(req, file).then((info) => callback(null, info), callback);
    },
    _removeFile(_req, file, callback) {
      store.delete(file.storageKey).then(() => callback(null), callback);
    },
  };
}
