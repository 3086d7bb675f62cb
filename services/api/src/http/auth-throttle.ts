/**
 * Bounds what unknown API keys cost without ever refusing a valid one (docs/decisions.md#http-behaviour-and-secrets-at-rest). Each
 * unknown key is a database lookup, so a client address that presented `limit` unknown keys within
 * the current minute becomes *suspect* until the minute ends:
 *
 * - its key lookups (those the key cache cannot answer) wait in one lane shared by every suspect
 *   address of this replica, one lookup at a time, so a flood of guessed keys holds one database
 *   connection rather than the pool;
 * - a key the lookup finds is served as usual (others behind the same address, a NAT or a proxy,
 *   are not locked out), and a key it does not find is refused with 429 and `Retry-After` instead
 *   of 401.
 *
 * Counted in process, so a request from an address that is not suspect pays one map read and no
 * round trip; each replica bounds its own share.
 */
export class FailedAuthThrottle {
  private failures = new Map<string, number>();
  private windowEndsAt = 0;
  /** The suspect lane: settles when the last lookup queued in it has. */
  private lane: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs a key lookup for an address: at once, or in the suspect lane when the address is over its limit. */
  lookup<T>(address: string, load: () => Promise<T>): Promise<T> {
    if (this.failuresOf(address) < this.limit) return load();
    const turn = this.lane.then(load);
    this.lane = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Counts an unknown key presented by the address. Answers the seconds until the window ends when
   * that puts the address over its limit (the request is refused with 429), else 0 (a 401).
   */
  recordFailure(address: string): number {
    const failures = this.failuresOf(address) + 1;
    this.failures.set(address, failures);
    return failures > this.limit ? Math.ceil((this.windowEndsAt - this.now()) / 1000) : 0;
  }

  private failuresOf(address: string): number {
    this.roll();
    return this.failures.get(address) ?? 0;
  }

  /** One fixed window for every address: forgetting them all at once keeps the map bounded by one window's attackers. */
  private roll(): void {
    const now = this.now();
    if (now < this.windowEndsAt) return;
    this.failures.clear();
    this.windowEndsAt = now + this.windowMs;
  }
}
