import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { AttemptThrottle } from './attempt-throttle';

const WINDOW_MS = 15 * 60 * 1000;
/**
 * Wrong passwords within 15 minutes: 5 for an account from one network (an IPv4 address, an IPv6 /56), 30 for an
 * account from everywhere, 20 from one network for any accounts. Per network first, so that a stranger who knows
 * someone's e-mail cannot lock them out: the owner's own network has not failed (the review of 11-27 kept a person
 * out for good with one wrong guess every 3 minutes). The ceiling per account still stops guessing spread over
 * many networks; only such a spread can make the owner wait, and never past its window.
 */
export const ACCOUNT_FROM_NETWORK_THROTTLE = { limit: 5, windowMs: WINDOW_MS };
export const ACCOUNT_THROTTLE = { limit: 30, windowMs: WINDOW_MS };
export const NETWORK_THROTTLE = { limit: 20, windowMs: WINDOW_MS };

/** A password check's outcome: the account signed in to, null (wrong), or a wait in milliseconds. */
export type PasswordOutcome = string | null | { wait: number };

/** The throttles of the built-in sign-in's password and passkey checks (built-in-provider.ts). */
export class PasswordGuard {
  private readonly fromNetwork = new AttemptThrottle(ACCOUNT_FROM_NETWORK_THROTTLE);
  private readonly account = new AttemptThrottle(ACCOUNT_THROTTLE);
  private readonly network = new AttemptThrottle(NETWORK_THROTTLE);
  private readonly checking = new Map<string, Promise<unknown>>();

  /** The client's network: its IPv4 address, or its IPv6 /56 (a home gets a /56 or a /64: one count for it all). */
  private networkOf(req: Request): string {
    return `network:${ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`;
  }

  private pair(accountKey: string, req: Request): string {
    return `${accountKey}|${this.networkOf(req)}`;
  }

  /** The longest wait that applies, in ms (0: go ahead); without an account, the network's only. */
  waitMs(accountKey: string | null, req: Request): number {
    const network = this.network.retryAfterMs(this.networkOf(req));
    if (accountKey === null) return network;
    return Math.max(network, this.account.retryAfterMs(accountKey), this.fromNetwork.retryAfterMs(this.pair(accountKey, req)));
  }

  /** A failure that names no account (a passkey that signs in to nothing). */
  failNetwork(req: Request): void {
    this.network.fail(this.networkOf(req));
  }

  /** A new password (a reset): the account starts afresh everywhere. */
  clearAccount(accountKey: string): void {
    this.account.clear(accountKey);
    this.fromNetwork.clearStartingWith(`${accountKey}|`);
  }

  /**
   * A password check under the throttles, one at a time per account (guesses sent together get no more tries than
   * guesses sent one after another): `{ wait }` while a throttle applies, else the account (null: wrong). A success
   * clears the account's count from this network; a failure counts everywhere.
   */
  check(accountKey: string, req: Request, check: () => Promise<string | null>): Promise<PasswordOutcome> {
    return this.oneAtATime(accountKey, async () => {
      const wait = this.waitMs(accountKey, req);
      if (wait > 0) return { wait };
      const accountId = await check();
      if (accountId) this.fromNetwork.clear(this.pair(accountKey, req));
      else {
        this.fromNetwork.fail(this.pair(accountKey, req));
        this.account.fail(accountKey);
        this.network.fail(this.networkOf(req));
      }
      return accountId;
    });
  }

  private async oneAtATime<T>(accountKey: string, run: () => Promise<T>): Promise<T> {
    const mine = (this.checking.get(accountKey) ?? Promise.resolve()).catch(() => undefined).then(run);
    this.checking.set(accountKey, mine);
    try {
      return await mine;
    } finally {
      if (this.checking.get(accountKey) === mine) this.checking.delete(accountKey);
    }
  }
}
