import request from 'supertest';
import { FailedAuthThrottle } from '../src/http/auth-throttle';
import { createHarness, createOrg, expectError, type Harness, type TestOrg } from './support/harness';

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = createHarness({ AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'true' });
  org = await createOrg(h.db);
});
afterAll(() => h.close());

const unknownKey = () => `tk_live_${'u'.repeat(24)}${Math.random().toString(36).slice(2, 10)}`;
const from = (address: string, key: string) => request(h.app).get('/v1/tasks').set('X-Forwarded-For', address).set('Authorization', `Bearer ${key}`);

describe('failed authentication throttle', () => {
  it('answers 429 with Retry-After to an address once it has presented the limit of unknown keys', async () => {
    for (let i = 0; i < 3; i += 1) expectError(await from('203.0.113.10', unknownKey()), 401, 'unauthenticated');
    const refused = await from('203.0.113.10', unknownKey());
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('leaves other addresses alone', async () => {
    for (let i = 0; i < 4; i += 1) await from('203.0.113.20', unknownKey());
    expect((await from('203.0.113.21', org.liveKey)).status).toBe(200);
  });

  it('never counts valid keys, however many requests they make', async () => {
    for (let i = 0; i < 10; i += 1) expect((await from('203.0.113.30', org.liveKey)).status).toBe(200);
    expectError(await from('203.0.113.30', unknownKey()), 401, 'unauthenticated');
  });
});

describe('FailedAuthThrottle', () => {
  it('forgets failures when the window ends', () => {
    let now = 1_000;
    const throttle = new FailedAuthThrottle(2, 60_000, () => now);
    throttle.recordFailure('a');
    expect(throttle.retryAfterSeconds('a')).toBe(0);
    throttle.recordFailure('a');
    expect(throttle.retryAfterSeconds('a')).toBe(60);
    now += 59_500;
    expect(throttle.retryAfterSeconds('a')).toBe(1);
    now += 500;
    expect(throttle.retryAfterSeconds('a')).toBe(0);
  });
});
