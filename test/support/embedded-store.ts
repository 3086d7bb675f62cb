import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { createObjectStore, type ObjectStore, type ObjectStoreOptions } from '../../packages/storage/src';
import { startEmbeddedS3, type EmbeddedS3 } from '../../packages/storage/src/embedded-s3';
import { createS3Client } from '../../packages/storage/src/s3-client';

export const BUCKET = 'test-bucket';

export interface TestStore {
  s3: EmbeddedS3;
  /** The store under test, on BUCKET. */
  store: ObjectStore;
  /** A plain client for looking behind the store's back. */
  client: S3Client;
  settings: ObjectStoreOptions;
  close(): Promise<void>;
}

/** An embedded s3rver on a free port, with its data in a fresh temporary directory. */
export async function startTestStore(): Promise<TestStore> {
  const directory = await mkdtemp(join(tmpdir(), 'worktrack-s3-'));
  const s3 = await startEmbeddedS3({ port: 0, directory, bucket: BUCKET });
  const settings: ObjectStoreOptions = {
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: BUCKET,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
  };
  const store = createObjectStore(settings);
  const client = createS3Client(settings);
  return {
    s3,
    store,
    client,
    settings,
    async close() {
      store.close();
      client.destroy();
      await s3.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The services' settings for `store`, as environment variables; `endpoint` points them elsewhere (say, where nobody listens). */
export function storeEnv(store: TestStore, endpoint = store.s3.endpoint): NodeJS.ProcessEnv {
  return { S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: store.s3.accessKeyId, S3_SECRET_ACCESS_KEY: store.s3.secretAccessKey, S3_BUCKET: BUCKET };
}

export async function listKeys(client: S3Client, bucket = BUCKET): Promise<string[]> {
  const { Contents = [] } = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return Contents.map(({ Key }) => Key ?? '');
}

/** Streams `bytes` in small chunks, the way a request body arrives. */
export function streamOf(bytes: Buffer, chunkSize = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += chunkSize) yield bytes.subarray(offset, offset + chunkSize);
    })(),
  );
}
