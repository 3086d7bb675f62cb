import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Mode, Plan, Role, UnscopedData } from '@worktrack/db';
import type { Actor } from '@worktrack/events';
import type { FailedAuthThrottle } from './auth-throttle';
import { ApiError } from './errors';
import { effectivePermissions, type Permission } from './permissions';

export interface Tenant {
  organizationId: string;
  organizationName: string;
  plan: Plan;
  dailyQuota: number | null;
  mode: Mode;
  userId: string;
  role: Role;
  keyId: string;
  permissions: Set<Permission>;
  /** Who acts, as the events of the request's changes name them (the data layer reads it from here). */
  actor: Actor;
}

declare global {
  namespace Express {
    interface Request {
      tenant?: Tenant;
    }
  }
}

const API_KEY_PATTERN = /^tk_(live|test)_[A-Za-z0-9_-]{32,}$/;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The tenant a key resolves to, as the key cache keeps it until the key expires. */
export type ResolvedKey = Tenant & { expiresAt: Date | null };

const unauthenticated = (message: string) => new ApiError('unauthenticated', message);

/** The API key a request presents, or a 401 when it presents none or a malformed one. */
export function bearerKey(req: Request): string {
  const header = req.get('authorization');
  if (!header) throw unauthenticated('Missing Authorization header; send "Authorization: Bearer <API key>"');
  const key = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  if (!key) throw unauthenticated('Use "Authorization: Bearer <API key>": the scheme must be Bearer, followed by the key');
  if (!API_KEY_PATTERN.test(key)) throw unauthenticated('Malformed API key: keys start with tk_live_ or tk_test_; send "Authorization: Bearer <API key>"');
  return key;
}

/** The key's tenant; undefined for a revoked or expired key, or one whose user is no longer a member. */
async function resolveKey(data: UnscopedData, hash: string): Promise<ResolvedKey | undefined> {
  const row = await data.resolveKey(hash);
  return (
    row && { ...row, permissions: effectivePermissions(row.permissions, row.role, row.mode), actor: { type: 'user', userId: row.userId, apiKeyId: row.keyId } }
  );
}

/**
 * Resolves the bearer key to its tenant, through the key cache (a query when it does not hold the
 * key). A revoked or expired key, or one whose user is no longer a member, is indistinguishable
 * from an unknown key. A valid key is never refused for where it comes from: the failed-auth
 * throttle only slows the lookups of an address that presented too many unknown keys, and answers
 * its unknown keys with 429 instead of 401.
 */
export function authenticate(data: UnscopedData, keys: KeyCache<ResolvedKey>, throttle: FailedAuthThrottle): RequestHandler {
  return async (req, res, next) => {
    const key = bearerKey(req);
    const address = req.ip ?? 'unknown';
    const hash = hashApiKey(key);
    const tenant = await keys.get(hash, () => throttle.lookup(address, () => resolveKey(data, hash)));
    if (!tenant) {
      const retryAfter = throttle.recordFailure(address);
      if (retryAfter === 0) throw unauthenticated('Invalid API key');
      res.setHeader('Retry-After', String(retryAfter));
      throw new ApiError('rate_limited', 'Too many unknown API keys from this address; retry later');
    }
    req.tenant = tenant;
    next();
  };
}

export function requireTenant(req: { tenant?: Tenant }): Tenant {
  if (!req.tenant) throw new Error('route mounted without authentication');
  return req.tenant;
}

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
