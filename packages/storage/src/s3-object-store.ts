import {
  BucketAlreadyOwnedByYou,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ByteTally } from './byte-tally';
import { attachmentDisposition } from './content-disposition';
import { toStorageError } from './errors';
import type { ObjectStore, ObjectStoreOptions } from './object-store';
import { createS3Client } from './s3-client';

/** The most keys one DeleteObjects request accepts. */
const DELETE_BATCH_SIZE = 1000;
/** Parts (5 MiB each) sent in parallel per upload, which bounds the memory an upload holds. */
const UPLOAD_QUEUE_SIZE = 2;

async function withStorageErrors<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    throw toStorageError(error);
  }
}

/** The store on the AWS SDK (object-store.ts loads this module at the store's first use). */
export function s3ObjectStore(options: ObjectStoreOptions): ObjectStore {
  const { bucket, publicEndpoint, ...clientSettings } = options;
  const client = createS3Client(clientSettings);
  // The signature covers the host, so download URLs are signed for the public endpoint itself.
  const presignClient = publicEndpoint ? createS3Client({ ...clientSettings, endpoint: publicEndpoint }) : client;

  async function bucketExists(): Promise<boolean> {
    try {
      await withStorageErrors(client.send(new HeadBucketCommand({ Bucket: bucket })));
      return true;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
      throw error;
    }
  }

  async function deleteBatch(keys: readonly string[]): Promise<void> {
    const { Errors = [] } = await withStorageErrors(
      client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
        }),
      ),
    );
    // S3 reports missing keys as deleted; some compatible stores report them as NoSuchKey.
    const failures = Errors.filter((failure) => failure.Code !== 'NoSuchKey');
    if (failures.length > 0) {
      const [first] = failures;
      throw new Error(`Could not delete ${failures.length} object(s), first ${first?.Key}: ${first?.Code} ${first?.Message}`);
    }
  }

  return {
    async ensureBucket() {
      if (await bucketExists()) return;
      try {
        await withStorageErrors(client.send(new CreateBucketCommand({ Bucket: bucket })));
      } catch (error) {
        // Another instance created it since we looked.
        if (!(error instanceof BucketAlreadyOwnedByYou)) throw error;
      }
    },

    async upload(key, body, contentType) {
      const tally = new ByteTally(body);
      const upload = new Upload({
        client,
        queueSize: UPLOAD_QUEUE_SIZE,
        params: { Bucket: bucket, Key: key, Body: tally.stream, ContentType: contentType },
      });
      try {
        await upload.done();
      } catch (error) {
        throw tally.isSourceError(error) ? error : toStorageError(error);
      }
      return { size: tally.bytes };
    },

    async presignDownload(key, { expiresInSeconds, fileName, contentType }) {
      const signingDate = new Date();
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ResponseContentDisposition: fileName === undefined ? undefined : attachmentDisposition(fileName),
        ResponseContentType: contentType,
      });
      const url = await getSignedUrl(presignClient, command, { expiresIn: expiresInSeconds, signingDate });
      return { url, expiresAt: new Date(signingDate.getTime() + expiresInSeconds * 1000) };
    },

    async delete(key) {
      await withStorageErrors(client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })));
    },

    async deleteMany(keys) {
      for (let start = 0; start < keys.length; start += DELETE_BATCH_SIZE) {
        await deleteBatch(keys.slice(start, start + DELETE_BATCH_SIZE));
      }
    },

    async ping() {
      await withStorageErrors(client.send(new HeadBucketCommand({ Bucket: bucket })));
    },

    close() {
      client.destroy();
      if (presignClient !== client) presignClient.destroy();
    },
  };
}
