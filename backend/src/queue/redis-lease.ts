import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { sleep, type Right } from './exclusive';

export interface LeaseOptions {
  /** How long a lease lives without renewal (ms). Another process can take it over this long after a crash. */
  ttlMs?: number;
  /** How often a process that does not hold the lease tries to take it (ms). */
  retryMs?: number;
}

/** Takes the lease, or extends it when this token already holds it. */
const ACQUIRE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;
/** Extends the lease only while this token holds it. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
/** Deletes the lease only while this token holds it (never another holder's). */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * An exclusive lease in Redis: `SET key token NX PX ttl`, renewed every ttl/3 while held, deleted on release
 * (compare-and-delete, so a process never frees another's lease). The value names the holder
 * (`host:pid:random`), which `projections status` shows.
 *
 * Validity is judged locally and pessimistically: a renewal sent at time t extends the lease to at least
 * t + ttl on the server, so the holder counts on it only until t + ttl (minus a margin for its in-flight work;
 * see `isValid`). A renewal that finds another token (the key expired, or Redis lost it) is a loss at once; a
 * renewal that fails (Redis unreachable) is retried until the local validity runs out, then it is a loss.
 */
export class RedisLease implements Right {
  readonly token = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  readonly ttlMs: number;
  private readonly retryMs: number;
  private validUntil = 0;
  private lostController = new AbortController();
  private renewTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    readonly key: string,
    options: LeaseOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 15_000;
    this.retryMs = options.retryMs ?? 1_000;
  }

  /** Aborted when the current holding is lost; a new signal per acquisition. */
  get lost(): AbortSignal {
    return this.lostController.signal;
  }

  /** Held, with at least `marginMs` (default a third of the ttl) of certain validity left. */
  isValid(marginMs = this.ttlMs / 3): boolean {
    return this.renewTimer !== null && Date.now() + marginMs < this.validUntil;
  }

  async acquire(cancel: AbortSignal): Promise<boolean> {
    while (!cancel.aborted) {
      const sentAt = Date.now();
      try {
        if (Number(await this.redis.eval(ACQUIRE, 1, this.key, this.token, this.ttlMs)) === 1) {
          this.validUntil = sentAt + this.ttlMs;
          this.lostController = new AbortController();
          this.scheduleRenewal();
          return true;
        }
      } catch {
        // Redis unreachable: try again later.
      }
      await sleep(this.retryMs, cancel);
    }
    return false;
  }

  async release(): Promise<void> {
    this.stopRenewal();
    this.validUntil = 0;
    await this.redis.eval(RELEASE, 1, this.key, this.token).catch(() => undefined);
  }

  private scheduleRenewal(): void {
    this.stopRenewal();
    this.renewTimer = setTimeout(() => void this.renew(), Math.max(10, Math.floor(this.ttlMs / 3)));
    this.renewTimer.unref();
  }

  private stopRenewal(): void {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
  }

  private async renew(): Promise<void> {
    const sentAt = Date.now();
    let result: number | null;
    try {
      result = Number(await this.redis.eval(RENEW, 1, this.key, this.token, this.ttlMs));
    } catch {
      result = null;
    }
    if (this.renewTimer === null) return; // released meanwhile
    if (result === 1) {
      this.validUntil = sentAt + this.ttlMs;
      this.scheduleRenewal();
    } else if (result === 0 || Date.now() >= this.validUntil - this.ttlMs / 3) {
      this.lose();
    } else {
      // Unreachable, but the lease is certainly ours a while longer: try again soon.
      this.renewTimer = setTimeout(() => void this.renew(), Math.max(10, Math.floor(this.ttlMs / 10)));
      this.renewTimer.unref();
    }
  }

  private lose(): void {
    this.stopRenewal();
    this.validUntil = 0;
    this.lostController.abort();
  }
}
