import request from 'supertest';
import { createHarness, expectError, type Harness } from './support/harness';

let h: Harness;

beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

describe('health', () => {
  it('answers /healthz and /readyz without a key', async () => {
    expect((await request(h.app).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(h.app).get('/readyz')).body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
  });

  it('reports not ready, in the error body, when Redis is unreachable', async () => {
    const broken = createHarness({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const res = await request(broken.app).get('/readyz');
      expectError(res, 503, 'unavailable');
      expect(res.body.error.message).toContain('redis');
    } finally {
      await broken.close();
    }
  });
});
