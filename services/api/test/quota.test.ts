import { as, createHarness, createOrg, expectError, type Harness } from '@test-support/api-harness';

let h: Harness;

beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

function nextUtcMidnightSeconds(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000;
}

describe('daily request quota', () => {
  it('sends the three X-RateLimit headers on every authenticated response, errors included', async () => {
    const org = await createOrg(h.db, { plan: 'free' });
    const ok = await as(h.app, org.liveKey).get('/v1/tasks');
    expect(ok.headers['x-ratelimit-limit']).toBe('1000');
    expect(ok.headers['x-ratelimit-remaining']).toBe('999');
    expect(Number(ok.headers['x-ratelimit-reset'])).toBe(nextUtcMidnightSeconds());
    const bad = await as(h.app, org.liveKey).get('/v1/tasks?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.headers['x-ratelimit-remaining']).toBe('998');
  });

  it('uses the plan quota and an organization-specific one', async () => {
    const pro = await createOrg(h.db, { plan: 'pro' });
    expect((await as(h.app, pro.liveKey).get('/v1/tasks')).headers['x-ratelimit-limit']).toBe('100000');
    const enterprise = await createOrg(h.db, { plan: 'enterprise', dailyQuota: 250_000 });
    expect((await as(h.app, enterprise.liveKey).get('/v1/tasks')).headers['x-ratelimit-limit']).toBe('250000');
  });

  it('counts live and test keys of one organization together and answers 429 with Retry-After once spent', async () => {
    const org = await createOrg(h.db, { plan: 'enterprise', dailyQuota: 3 });
    await as(h.app, org.liveKey).get('/v1/tasks').expect(200);
    await as(h.app, org.testKey).get('/v1/tasks').expect(200);
    await as(h.app, org.liveKey).get('/v1/projects').expect(200);
    const limited = await as(h.app, org.testKey).get('/v1/tasks');
    expectError(limited, 429, 'rate_limited');
    expect(limited.body.error.type).toBe('rate_limit_error');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-limit']).toBe('3');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);

    const other = await createOrg(h.db, { plan: 'enterprise', dailyQuota: 3 });
    expect((await as(h.app, other.liveKey).get('/v1/tasks')).status).toBe(200);
  });

  it('is shared by every replica through Redis', async () => {
    const org = await createOrg(h.db, { plan: 'enterprise', dailyQuota: 2 });
    const replica = createHarness({ REDIS_PREFIX: h.deps.config.redisPrefix });
    try {
      await as(h.app, org.liveKey).get('/v1/tasks').expect(200);
      await as(replica.app, org.liveKey).get('/v1/tasks').expect(200);
      expectError(await as(h.app, org.liveKey).get('/v1/tasks'), 429, 'rate_limited');
      expectError(await as(replica.app, org.liveKey).get('/v1/tasks'), 429, 'rate_limited');
    } finally {
      await replica.close();
    }
  });

  it('stays exact under concurrent requests on two replicas, and its counter expires after the day', async () => {
    const quota = 20;
    const org = await createOrg(h.db, { plan: 'enterprise', dailyQuota: quota });
    const replica = createHarness({ REDIS_PREFIX: h.deps.config.redisPrefix });
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => as(i % 2 ? replica.app : h.app, org.liveKey).get('/v1/tasks')));
      expect(answers.filter((res) => res.status === 200)).toHaveLength(quota);
      expect(answers.filter((res) => res.status === 429)).toHaveLength(50 - quota);
      const remaining = answers.map((res) => Number(res.headers['x-ratelimit-remaining'])).sort((a, b) => a - b);
      expect(remaining.filter((r) => r > 0)).toEqual(Array.from({ length: quota - 1 }, (_, i) => i + 1));

      const [counter] = await h.deps.redis.keys(`${h.deps.config.redisPrefix}:quota:${org.organization.id}:*`);
      expect(await h.deps.redis.get(counter!)).toBe('50');
      expect(await h.deps.redis.expiretime(counter!)).toBe(nextUtcMidnightSeconds() + 3600);
    } finally {
      await replica.close();
    }
  });
});
