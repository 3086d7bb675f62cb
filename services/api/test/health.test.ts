import request from 'supertest';
import { BUCKET, closedPort, startTestStore, type TestStore } from '../../../packages/storage/test/embedded-store';
import { createHarness, expectError, type Harness } from './support/harness';

let s3: TestStore;
let h: Harness;

const storeSettings = (endpoint: string) => ({
  S3_ENDPOINT: endpoint,
  S3_ACCESS_KEY_ID: s3.s3.accessKeyId,
  S3_SECRET_ACCESS_KEY: s3.s3.secretAccessKey,
  S3_BUCKET: BUCKET,
});

beforeAll(async () => {
  s3 = await startTestStore();
  h = createHarness(storeSettings(s3.s3.endpoint));
});
afterAll(async () => {
  await h.close();
  await s3.close();
});

describe('health', () => {
  it('answers /healthz and /readyz without a key', async () => {
    expect((await request(h.app).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(h.app).get('/readyz')).body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok', objectStore: 'ok' } });
  });

  it.each([
    ['Redis', () => ({ ...storeSettings(s3.s3.endpoint), REDIS_URL: 'redis://127.0.0.1:1' }), 'redis'],
    ['the object store', async () => storeSettings(`http://127.0.0.1:${await closedPort()}`), 'objectStore'],
  ])('reports not ready, in the error body, when %s is unreachable', async (_what, settings, named) => {
    const broken = createHarness(await settings());
    try {
      const res = await request(broken.app).get('/readyz');
      expectError(res, 503, 'unavailable');
      expect(res.body.error.message).toContain(named);
    } finally {
      await broken.close();
    }
  });
});
