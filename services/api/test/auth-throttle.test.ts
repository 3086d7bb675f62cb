import request from 'supertest';
import { FailedAuthThrottle } from '../src/http/auth-throttle';
import { createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

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
  it('refuses the unknown keys of an address past the limit until the window ends', () => {
    let now = 1_000;
    const throttle = new FailedAuthThrottle(2, 60_000, () => now);
    expect(throttle.recordFailure('a')).toBe(0);
    expect(throttle.recordFailure('a')).toBe(0);
    expect(throttle.recordFailure('a')).toBe(60);
    expect(throttle.recordFailure('b')).toBe(0);
    now += 59_500;
    expect(throttle.recordFailure('a')).toBe(1);
    now += 500;
    expect(throttle.recordFailure('a')).toBe(0);
  });

  it("runs a suspect address's lookups one at a time, and others' at once", async () => {
    const throttle = new FailedAuthThrottle(1);
    throttle.recordFailure('suspect');
    const started: string[] = [];
    const finish: Record<string, (value: string) => void> = {};
    const load = (name: string) => () => {
      started.push(name);
      return new Promise<string>((resolve) => {
        finish[name] = resolve;
      });
    };
    const first = throttle.lookup('suspect', load('first'));
    const second = throttle.lookup('suspect', load('second'));
    const other = throttle.lookup('other', load('other'));
    await new Promise(setImmediate);
    expect(started.toSorted()).toEqual(['first', 'other']);
    finish.first!('one');
    expect(await first).toBe('one');
    await new Promise(setImmediate);
    expect(started.toSorted()).toEqual(['first', 'other', 'second']);
    finish.second!('two');
    finish.other!('three');
    expect(await Promise.all([second, other])).toEqual(['two', 'three']);
  });

  it('keeps the suspect lane going after a lookup fails', async () => {
    const throttle = new FailedAuthThrottle(0);
    await expect(throttle.lookup('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(throttle.lookup('a', async () => 'up')).resolves.toBe('up');
  });
});
