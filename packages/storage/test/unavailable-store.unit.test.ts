import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createObjectStore, StorageUnavailableError, type ObjectStore } from '../src';
import { CLOSED_PORT } from '@test-support/processes';
import { streamOf } from '@test-support/embedded-store';

/** Well within the default jest timeout: failing fast is the point. */
const FAST_MS = 4000;

const settingsAt = (endpoint: string) => ({ endpoint, region: 'us-east-1', accessKeyId: 'key', secretAccessKey: 'secret', forcePathStyle: true });

describe('an object store nobody listens on', () => {
  let store: ObjectStore;

  beforeAll(async () => {
    store = createObjectStore({ ...settingsAt(`http://127.0.0.1:${CLOSED_PORT}`), bucket: 'any' });
  });

  afterAll(() => store.close());

  it.each<[string, () => Promise<unknown>]>([
    ['upload', () => store.upload('key', streamOf(Buffer.from('data')), 'text/plain')],
    ['delete', () => store.delete('key')],
    ['deleteMany', () => store.deleteMany(['a', 'b'])],
    ['ensureBucket', () => store.ensureBucket()],
    ['ping', () => store.ping()],
  ])('%s rejects with StorageUnavailableError quickly', async (_name, operation) => {
    const started = performance.now();

    const failure = await operation().catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(StorageUnavailableError);
    expect(failure).toMatchObject({ name: 'StorageUnavailableError' });
    expect(performance.now() - started).toBeLessThan(FAST_MS);
  });

  it('still signs download URLs, which need no connection', async () => {
    await expect(store.presignDownload('key', { expiresInSeconds: 60 })).resolves.toMatchObject({
      url: expect.stringContaining('/any/key?'),
    });
  });
});

describe('an object store behind a gateway whose store is down', () => {
  let gateway: http.Server;
  let store: ObjectStore;

  beforeAll(async () => {
    gateway = http.createServer((_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream down'));
    gateway.listen(0, '127.0.0.1');
    await once(gateway, 'listening');
    const { port } = gateway.address() as AddressInfo;
    store = createObjectStore({ ...settingsAt(`http://127.0.0.1:${port}`), bucket: 'any' });
  });

  afterAll(async () => {
    store.close();
    gateway.closeAllConnections();
    await new Promise((resolve) => gateway.close(resolve));
  });

  it('rejects with StorageUnavailableError on its 503 answers', async () => {
    await expect(store.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(store.delete('key')).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
