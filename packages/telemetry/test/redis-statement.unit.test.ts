import { redisStatement } from '../src/redis-statement';

describe('redisStatement', () => {
  it("names a command's key, never its values", () => {
    expect(redisStatement('get', ['wt:quota:org_1'])).toBe('get wt:quota:org_1');
    expect(redisStatement('hset', ['wt:job:1', 'data', '{"secret":"payload"}'])).toBe('hset wt:job:1');
    expect(redisStatement('ping', [])).toBe('ping');
  });

  it("names a script call's keys, not its script, digest or arguments", () => {
    const script = "local hits = redis.call('INCRBY', KEYS[1], ARGV[2]) return hits";
    expect(redisStatement('eval', [script, 1, 'wt:quota:org_1:2026-11-28', 1795827600, 1])).toBe('eval wt:quota:org_1:2026-11-28');
    expect(redisStatement('evalsha', ['4f1c0e9d', '2', 'wt:wait', 'wt:active', '{"job":"payload"}'])).toBe('evalsha wt:wait wt:active');
    expect(redisStatement('EVALSHA', ['4f1c0e9d', 0, 'argument'])).toBe('EVALSHA');
  });

  it('leaves out binary keys', () => {
    expect(redisStatement('get', [Buffer.from('binary')])).toBe('get');
  });
});
