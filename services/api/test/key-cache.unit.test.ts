import { KeyCache, type CachedKey } from '../src/http/auth';

const LIFETIME_MS = 1_000;

function setup() {
  let now = 0;
  const cache = new KeyCache<CachedKey & { name: string }>(LIFETIME_MS, () => now);
  const loads: string[] = [];
  const loader =
    (name: string, organizationId = 'org_a', expiresAt: Date | null = null) =>
    async () => {
      loads.push(name);
      return { name, organizationId, expiresAt };
    };
  return { cache, loads, loader, advance: (ms: number) => (now += ms) };
}

describe('KeyCache', () => {
  it('answers from memory for its lifetime, then looks the key up again', async () => {
    const { cache, loads, loader, advance } = setup();
    expect(await cache.get('k', loader('first'))).toMatchObject({ name: 'first' });
    advance(LIFETIME_MS - 1);
    expect(await cache.get('k', loader('second'))).toMatchObject({ name: 'first' });
    advance(1);
    expect(await cache.get('k', loader('third'))).toMatchObject({ name: 'third' });
    expect(loads).toEqual(['first', 'third']);
  });

  it('shares one lookup between concurrent requests', async () => {
    const { cache, loads, loader } = setup();
    const found = await Promise.all([cache.get('k', loader('a')), cache.get('k', loader('b')), cache.get('k', loader('c'))]);
    expect(found.map((f) => f?.name)).toEqual(['a', 'a', 'a']);
    expect(loads).toEqual(['a']);
  });

  it('never keeps a key past its expiry', async () => {
    const { cache, loads, loader, advance } = setup();
    await cache.get('k', loader('first', 'org_a', new Date(LIFETIME_MS / 2)));
    advance(LIFETIME_MS / 2);
    await cache.get('k', loader('second'));
    expect(loads).toEqual(['first', 'second']);
  });

  it('keeps no unknown key and no failed lookup', async () => {
    const { cache } = setup();
    let lookups = 0;
    const unknown = async () => {
      lookups += 1;
      return undefined;
    };
    await cache.get('k', unknown);
    await cache.get('k', unknown);
    await expect(cache.get('j', () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(await cache.get('j', unknown)).toBeUndefined();
    expect(lookups).toBe(3);
  });

  it("forgets an organization's keys when invalidated, and no other organization's", async () => {
    const { cache, loads, loader } = setup();
    await cache.get('a', loader('a1', 'org_a'));
    await cache.get('b', loader('b1', 'org_b'));
    cache.invalidate('org_a');
    await cache.get('a', loader('a2', 'org_a'));
    await cache.get('b', loader('b2', 'org_b'));
    expect(loads).toEqual(['a1', 'b1', 'a2']);
  });

  it('does not keep a lookup that an invalidation overtook', async () => {
    const { cache, loads, loader } = setup();
    let answer!: () => void;
    const slow = cache.get('k', () => new Promise((resolve) => (answer = () => resolve({ name: 'stale', organizationId: 'org_a', expiresAt: null }))));
    cache.invalidate('org_a');
    answer();
    expect(await slow).toMatchObject({ name: 'stale' });
    expect(await cache.get('k', loader('fresh'))).toMatchObject({ name: 'fresh' });
    expect(loads).toEqual(['fresh']);
  });
});
