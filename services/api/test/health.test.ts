import request from 'supertest';
import { CLOSED_PORT } from '@test-support/processes';
import { startTestStore, storeEnv, type TestStore } from '@test-support/embedded-store';
import { createHarness, expectError, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';

let s3: TestStore;
let h: Harness;

beforeAll(async () => {
  s3 = await startTestStore();
  h = createHarness(storeEnv(s3));
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
    ['Redis', () => ({ ...storeEnv(s3), REDIS_URL: 'redis://127.0.0.1:1' }), 'redis'],
    ['Postgres', async () => ({ ...storeEnv(s3), DATABASE_URL: `postgresql://postgres@127.0.0.1:${CLOSED_PORT}/worktrack` }), 'database'],
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

  it('stays ready when only the object store is unreachable, and names it (the file routes answer 503 themselves: files.test.ts)', async () => {
    const storeDown = createHarness(storeEnv(s3, `http://127.0.0.1:${CLOSED_PORT}`));
    try {
      // Polled: the new harness's Redis connection is made in the background.
      const ready = await waitFor(async () => {
        const res = await request(storeDown.app).get('/readyz');
        return res.status === 200 ? res.body : undefined;
      });
      expect(ready).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok', objectStore: 'unavailable' } });
    } finally {
      await storeDown.close();
    }
  });
});
