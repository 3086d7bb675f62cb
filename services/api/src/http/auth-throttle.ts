/**
 * Bounds what unknown API keys cost: each one is a database lookup, so a client address that
 * presented `limit` unknown keys within the current minute is refused (429) until the minute
 * ends, before any lookup. Counted in process, so a valid request pays one map read and no
 * round trip; each replica bounds its own share.
 */
export class FailedAuthThrottle {
  private failures = new Map<string, number>();
  private windowEndsAt = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the address may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string): number {
    this.roll();
    return (this.failures.get(address) ?? 0) >= this.limit ? Math.ceil((this.windowEndsAt - this.now()) / 1000) : 0;
  }

  recordFailure(address: string): void {
    this.roll();
    this.failures.set(address, (this.failures.get(address) ?? 0) + 1);
  }

  /** One fixed window for every address: forgetting them all at once keeps the map bounded by one window's attackers. */
  private roll(): void {
    const now = this.now();
    if (now < this.windowEndsAt) return;
    this.failures.clear();
    this.windowEndsAt = now + this.windowMs;
  }
}
