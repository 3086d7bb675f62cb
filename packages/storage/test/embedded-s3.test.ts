import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createObjectStore } from '../src';
import { startEmbeddedS3, type EmbeddedS3 } from '../src/embedded-s3';
import { streamOf } from '@test-support/embedded-store';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'worktrack-embedded-s3-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function storeFor(s3: EmbeddedS3, bucket: string) {
  return createObjectStore({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
  });
}

it('listens on a free port when given port 0 and creates the bucket', async () => {
  const s3 = await startEmbeddedS3({ port: 0, directory, bucket: 'files' });
  const store = storeFor(s3, 'files');

  try {
    expect(s3.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(s3.endpoint).port).not.toBe('0');
    await expect(store.ping()).resolves.toBeUndefined();
  } finally {
    store.close();
    await s3.close();
  }
});

it('keeps objects in its directory across restarts', async () => {
  const first = await startEmbeddedS3({ port: 0, directory, bucket: 'files' });
  const firstStore = storeFor(first, 'files');
  await firstStore.upload('kept.txt', streamOf(Buffer.from('still here')), 'text/plain');
  firstStore.close();
  await first.close();

  const second = await startEmbeddedS3({ port: 0, directory, bucket: 'files' });
  const secondStore = storeFor(second, 'files');
  try {
    const { url } = await secondStore.presignDownload('kept.txt', { expiresInSeconds: 60 });
    expect(await (await fetch(url)).text()).toBe('still here');
  } finally {
    secondStore.close();
    await second.close();
  }
});

it('accepts the access key it was given', async () => {
  const s3 = await startEmbeddedS3({
    port: 0,
    directory,
    bucket: 'files',
    accessKeyId: 'local-key',
    secretAccessKey: 'local-secret',
  });
  const store = storeFor(s3, 'files');

  try {
    expect(s3).toMatchObject({ accessKeyId: 'local-key', secretAccessKey: 'local-secret' });
    await expect(store.upload('a.txt', streamOf(Buffer.from('a')), 'text/plain')).resolves.toEqual({ size: 1 });
  } finally {
    store.close();
    await s3.close();
  }
});
