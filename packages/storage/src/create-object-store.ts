import type { ObjectStore, ObjectStoreOptions } from './object-store';

/**
 * One bucket of an S3-compatible store, the AWS SDK loaded at its first use: most processes and
 * requests never touch a file, and the SDK is the largest library the API would load at start.
 * The bucket is made, if missing, before the first upload into it (once it succeeds, not again).
 */
export function createObjectStore(options: ObjectStoreOptions): ObjectStore {
  let loaded: ObjectStore | undefined;
  const store = () => (loaded ??= (require('./s3-object-store') as typeof import('./s3-object-store')).s3ObjectStore(options));
  let bucketMade: Promise<void> | undefined;
  const ensureBucket = () =>
    (bucketMade ??= store()
      .ensureBucket()
      .catch((err: unknown) => {
        bucketMade = undefined;
        throw err;
      }));
  return {
    ensureBucket,
    upload: async (key, body, contentType) => {
      await ensureBucket();
      return store().upload(key, body, contentType);
    },
    presignDownload: (key, presign) => store().presignDownload(key, presign),
    delete: (key) => store().delete(key),
    deleteMany: (keys) => store().deleteMany(keys),
    ping: () => store().ping(),
    close: () => loaded?.close(),
  };
}
