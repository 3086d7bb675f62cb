/**
 * How long a replica trusts what it resolved a key to. A revoked key or removed member must be
 * refused within 1 s on every replica; this holds even when a revocation message is lost.
 */
export const KEY_CACHE_LIFETIME_MS = 1_000;

export interface CachedKey {
  organizationId: string;
  expiresAt: Date | null;
}

interface Entry<T> {
  value: Promise<T | undefined>;
  /** Set once the lookup answered. */
  resolved?: T;
  until: number;
}

/**
 * Resolved API keys, kept in process for `lifetimeMs` so that a request usually costs no key
 * lookup. The lifetime alone bounds how long a revoked key keeps working here; `invalidate` ends
 * it at once (ApiKeyRevocations calls it on every replica). Concurrent lookups of one key share
 * one query; unknown keys are never kept, and neither is a lookup that an invalidation overtook.
 */
export class KeyCache<T extends CachedKey> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Bumped by every invalidation, so a lookup that started before one is not kept. */
  private generation = 0;
  private nextPrune = 0;

  constructor(
    private readonly lifetimeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(hash: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = this.now();
    const cached = this.entries.get(hash);
    if (cached && cached.until > now) return cached.value;
    this.prune(now);

    const generation = this.generation;
    const entry: Entry<T> = { value: load(), until: now + this.lifetimeMs };
    this.entries.set(hash, entry);
    const forget = () => {
      if (this.entries.get(hash) === entry) this.entries.delete(hash);
    };
    entry.value.then((found) => {
      if (!found || generation !== this.generation) return forget();
      entry.resolved = found;
      if (found.expiresAt) entry.until = Math.min(entry.until, found.expiresAt.getTime());
    }, forget);
    return entry.value;
  }

  /** Forgets the organization's keys, and every lookup still in flight. */
  invalidate(organizationId: string): void {
    this.generation += 1;
    for (const [hash, entry] of this.entries) {
      if (!entry.resolved || entry.resolved.organizationId === organizationId) this.entries.delete(hash);
    }
  }

  /** Drops expired entries once a lifetime, so keys no longer used do not pile up. */
  private prune(now: number): void {
    if (now < this.nextPrune) return;
    this.nextPrune = now + this.lifetimeMs;
    for (const [hash, entry] of this.entries) if (entry.until <= now) this.entries.delete(hash);
  }
}
