/**
 * Wrong passwords, counted per key (an account, a network, both) over a window. After `limit` failures within the
 * window the key is refused until the oldest of them leaves it: a guesser gets a few tries per window, while the
 * real owner is never locked out for longer than the window (and a success clears the account's count).
 */
export interface ThrottleRule {
  limit: number;
  windowMs: number;
}

export class AttemptThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly rule: ThrottleRule,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Milliseconds until `key` may try again; 0 when it may now. */
  retryAfterMs(key: string): number {
    const recent = this.recent(key);
    if (recent.length < this.rule.limit) return 0;
    return recent[recent.length - this.rule.limit] + this.rule.windowMs - this.clock();
  }

  fail(key: string): void {
    const recent = this.recent(key);
    recent.push(this.clock());
    // Only the last `limit` failures decide anything.
    this.failures.set(key, recent.slice(-this.rule.limit));
    if (this.failures.size > 100_000) this.sweep();
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  /** Forgets every key that starts with `prefix` (an account's counts from each network). */
  clearStartingWith(prefix: string): void {
    for (const key of [...this.failures.keys()]) if (key.startsWith(prefix)) this.failures.delete(key);
  }

  private recent(key: string): number[] {
    const since = this.clock() - this.rule.windowMs;
    const recent = (this.failures.get(key) ?? []).filter((at) => at > since);
    if (recent.length === 0) this.failures.delete(key);
    return recent;
  }

  /** Bounds memory under a flood of keys: forgets the failures that have left the window. */
  private sweep(): void {
    for (const key of [...this.failures.keys()]) this.recent(key);
  }
}

/** "Too many attempts, try again in N minutes" (at least one). */
export function tooManyAttempts(retryAfterMs: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `Too many attempts, try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}
