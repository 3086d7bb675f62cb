import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { createObjectStore, StorageUnavailableError } from '../src';
import { listKeys, startTestStore, streamOf, type TestStore } from '@test-support/embedded-store';

const MiB = 1024 * 1024;

let harness: TestStore;

beforeAll(async () => {
  harness = await startTestStore();
});

afterAll(async () => {
  await harness.close();
});

async function download(key: string, options: { fileName?: string; contentType?: string } = {}) {
  const { url } = await harness.store.presignDownload(key, { expiresInSeconds: 60, ...options });
  return fetch(url);
}

describe('upload and presignDownload', () => {
  it('streams a multi-part upload and serves the identical bytes with its content type', async () => {
    const bytes = randomBytes(7 * MiB);

    const { size } = await harness.store.upload('big.bin', streamOf(bytes), 'application/pdf');
    const response = await download('big.bin');

    expect(size).toBe(bytes.length);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('stores a file smaller than one part', async () => {
    const bytes = randomBytes(1000);

    const { size } = await harness.store.upload('small.png', streamOf(bytes, 100), 'image/png');
    const response = await download('small.png');

    expect(size).toBe(1000);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('stores an empty file', async () => {
    const { size } = await harness.store.upload('empty.txt', Readable.from([]), 'text/plain');
    const response = await download('empty.txt');

    expect(size).toBe(0);
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('overrides the download name and content type when asked', async () => {
    await harness.store.upload('report', streamOf(Buffer.from('hello')), 'application/octet-stream');

    const response = await download('report', { fileName: 'Bericht "März".txt', contentType: 'text/plain' });

    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Bericht _M_rz_.txt"; filename*=UTF-8''Bericht%20%22M%C3%A4rz%22.txt`);
  });

  it('rejects with the source stream error and leaves no object when the body fails', async () => {
    const failure = new Error('client went away');
    const body = Readable.from(
      (async function* () {
        yield randomBytes(1000);
        throw failure;
      })(),
    );

    await expect(harness.store.upload('broken.bin', body, 'application/octet-stream')).rejects.toBe(failure);
    expect(await listKeys(harness.client)).not.toContain('broken.bin');
  });

  it('reports an expiry of now plus the requested lifetime', async () => {
    const before = Date.now();
    const { url, expiresAt } = await harness.store.presignDownload('big.bin', { expiresInSeconds: 900 });
    const after = Date.now();

    expect(expiresAt.getTime()).toBeGreaterThanOrEqual(before + 900_000);
    expect(expiresAt.getTime()).toBeLessThanOrEqual(after + 900_000);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('900');
  });

  it('signs download URLs for the public endpoint', async () => {
    const store = createObjectStore({ ...harness.settings, publicEndpoint: 'https://files.example.test' });

    const { url } = await store.presignDownload('big.bin', { expiresInSeconds: 60 });
    store.close();

    expect(url).toMatch(/^https:\/\/files\.example\.test\/test-bucket\/big\.bin\?/);
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('host');
  });
});

describe('delete', () => {
  it('removes the object, after which its download URL answers 404', async () => {
    await harness.store.upload('doomed.txt', streamOf(Buffer.from('bye')), 'text/plain');

    await harness.store.delete('doomed.txt');

    expect((await download('doomed.txt')).status).toBe(404);
  });

  it('accepts a key that does not exist', async () => {
    await expect(harness.store.delete('never-existed')).resolves.toBeUndefined();
  });
});

describe('deleteMany', () => {
  it('removes the listed objects, ignoring missing ones', async () => {
    for (const key of ['many/a', 'many/b', 'many/c']) {
      await harness.store.upload(key, streamOf(Buffer.from(key)), 'text/plain');
    }

    await harness.store.deleteMany(['many/a', 'many/b', 'many/missing']);

    expect((await listKeys(harness.client)).filter((key) => key.startsWith('many/'))).toEqual(['many/c']);
  });

  it('does nothing for no keys', async () => {
    await expect(harness.store.deleteMany([])).resolves.toBeUndefined();
  });
});

describe('ensureBucket and ping', () => {
  it('creates a missing bucket, and is idempotent', async () => {
    const store = createObjectStore({ ...harness.settings, bucket: 'fresh-bucket' });

    await store.ensureBucket();
    await store.ensureBucket();
    await expect(store.ping()).resolves.toBeUndefined();
    store.close();
    expect(await listKeys(harness.client, 'fresh-bucket')).toEqual([]);
  });

  it('makes a missing bucket before the first upload into it', async () => {
    const store = createObjectStore({ ...harness.settings, bucket: 'made-at-first-upload' });

    const { size } = await store.upload('first.txt', streamOf(Buffer.from('first')), 'text/plain');
    await store.upload('second.txt', streamOf(Buffer.from('second')), 'text/plain');
    store.close();

    expect(size).toBe(5);
    expect((await listKeys(harness.client, 'made-at-first-upload')).sort()).toEqual(['first.txt', 'second.txt']);
  });

  it('ping fails with the store answer, not as unavailable, when the bucket is missing', async () => {
    const store = createObjectStore({ ...harness.settings, bucket: 'no-such-bucket' });

    const failure = await store.ping().catch((error: unknown) => error);
    store.close();

    expect(failure).not.toBeInstanceOf(StorageUnavailableError);
    expect(failure).toMatchObject({ $metadata: { httpStatusCode: 404 } });
  });

  it('ping resolves for the configured bucket', async () => {
    await expect(harness.store.ping()).resolves.toBeUndefined();
  });
});
