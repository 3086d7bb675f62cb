import { createObjectStore, StorageUnavailableError, type ObjectStore } from '../src';
import { CLOSED_PORT } from '@test-support/processes';
import { streamOf } from '@test-support/embedded-store';

/** Well within the default jest timeout: failing fast is the point. */
const FAST_MS = 4000;

describe('an object store nobody listens on', () => {
  let store: ObjectStore;

  beforeAll(async () => {
    store = createObjectStore({
      endpoint: `http://127.0.0.1:${CLOSED_PORT}`,
      region: 'us-east-1',
      bucket: 'any',
      accessKeyId: 'key',
      secretAccessKey: 'secret',
      forcePathStyle: true,
    });
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
