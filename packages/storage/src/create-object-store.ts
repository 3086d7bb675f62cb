import type { ObjectStore, ObjectStoreOptions } from './object-store';

/**
 * One bucket of an S3-compatible store, the AWS SDK loaded at its first use: most processes and
 * requests never touch a file, and the SDK is the largest library the API would load at start.
 */
export function createObjectStore(options: ObjectStoreOptions): ObjectStore {
  let loaded: ObjectStore | undefined;
  const store = () => (loaded ??= (require('./s3-object-store') as typeof import('./s3-object-store')).s3ObjectStore(options));
  return {
    ensureBucket: () => store().ensureBucket(),
    upload: (key, body, contentType) => store().upload(key, body, contentType),
    presignDownload: (key, presign) => store().presignDownload(key, presign),
    delete: (key) => store().delete(key),
    deleteMany: (keys) => store().deleteMany(keys),
    ping: () => store().ping(),
    close: () => loaded?.close(),
  };
}
