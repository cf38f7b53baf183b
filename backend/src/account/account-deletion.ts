import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type session from 'express-session';
import { LOCAL_ACCOUNTS, LOOKUP_HASH, SESSION_STORE } from '../app.tokens';
import { EndSubscriptionNowCommand } from '../billing/billing.handlers';
import { decideAndAppend, metadataFor } from '../event-store/decider';
import { EVENT_STORE, WrongExpectedVersionError, type EventStore, type RecordedEvent } from '../event-store/event-store.port';
import { userStreamCodec } from '../identity/accounts';
import type { LocalAccounts } from '../identity/accounts/local-accounts';
import type { LookupHash } from '../identity/lookup-hash';
import { endsSessionsOfUser } from '../identity/session-store.port';
import {
  identityDecider,
  identityLinkDecider,
  IdentityLinkEvent,
  identityLinkStream,
  legacyIdentityLinkStream,
  unlinkEvents,
} from '../identity/identity.decider';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import type { RatingsClosed } from '../ratings/ratings.decider';

/** Deleting touches every read model of the person (10,000 ratings take a moment): wait longer than a command. */
const PROJECTIONS_TIMEOUT_MS = 60_000;

const linkUpcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as IdentityLinkEvent;

/**
 * Deletes an account (PRODUCT.md "Data and account"), in an order that a retry after a crash completes:
 * 1. Joy Premium ends now (the provider cancels at once; no further charge).
 * 2. The identity link is cut (`IdentityUnlinked`), so signing in again makes a new, empty account; an account of
 *    the built-in sign-in is removed with its password, passkeys and encrypted e-mail.
 * 3. The ratings stream is closed (`RatingsClosed`: later writes to it are refused), then `MemberLeft` for every
 *    group and `UserDeleted` on the person's stream: the projectors drop them from the
 *    groups, their figures and suggestions, and delete their own documents (profile, ratings, memberships,
 *    subscription, suggestions).
 * 4. The key is destroyed: every encrypted personal field of theirs, wherever it was copied, is unreadable, and
 *    every session of theirs ends at the next request.
 * Nothing here logs personal data (only the pseudonymous id's count of groups).
 */
@Injectable()
export class AccountDeletion {
  private readonly logger = new Logger('Account');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(SESSION_STORE) private readonly sessions: session.Store,
    private readonly commands: CommandBus,
    @Inject(LOCAL_ACCOUNTS) private readonly accounts: LocalAccounts | null,
    @Inject(LOOKUP_HASH) private readonly lookup: LookupHash,
  ) {}

  async delete(userId: string, now = new Date()): Promise<void> {
    await this.commands.execute(new EndSubscriptionNowCommand(userId));

    const key = await this.keys.existingKey(userId);
    const codec = userStreamCodec(key);
    const state = (await this.store.readStream(`user-${userId}`)).map(codec.upcast).reduce(identityDecider.evolve, identityDecider.initialState);
    if (state.registered && !state.deleted && state.issuer && state.subject) {
      // The link under its keyed name, and the one an install before keyed hashes wrote (when there is one).
      await this.unlink(identityLinkStream(this.lookup, state.issuer, state.subject), userId, now, `unlink-${userId}`);
      await this.unlink(legacyIdentityLinkStream(state.issuer, state.subject), userId, now, `unlink-legacy-${userId}`);
      // An account of the built-in sign-in (its subject is the account's id): its password and passkeys go too.
      if (this.accounts?.store.byId(state.subject)) await this.accounts.remove(state.subject);
    }

    // The ratings stream first: a rating sent at this moment is appended before UserDeleted (and goes with the
    // account) or refused; never after it, where it would bring the person's documents back.
    const closing: RatingsClosed = { type: 'RatingsClosed', data: { userId, closedAt: now.toISOString() } };
    await this.store.appendToStream(`ratings-${userId}`, [{ ...closing, metadata: metadataFor({ actorUserId: userId, now }, `close-ratings-${userId}`) }], { expectedVersion: 'any' });

    const { events, append } = await decideAndAppend(
      this.store,
      `user-${userId}`,
      identityDecider,
      { type: 'DeleteAccount', userId, at: now },
      { actorUserId: userId, now },
      codec,
    );
    await this.keys.destroy(userId);
    if (endsSessionsOfUser(this.sessions)) await this.sessions.destroyAllOf(userId);
    if (append) await this.readYourWrites.waitFor(append.position, { eventTypes: ['MemberLeft', 'UserDeleted'], timeoutMs: PROJECTIONS_TIMEOUT_MS });
    this.logger.log(`Account deleted (left ${events.filter((e) => e.type === 'MemberLeft').length} groups)`);
  }

  /** A link stream of the identity stops leading to this account (appended with its expected version). */
  private async unlink(stream: string, userId: string, now: Date, eventId: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const recorded = await this.store.readStream(stream);
      if (recorded.length === 0) return; // never linked under this name (no legacy link, or a retry found none)
      const events = unlinkEvents(recorded.map(linkUpcast).reduce(identityLinkDecider.evolve, identityLinkDecider.initialState), userId, now);
      if (events.length === 0) return;
      try {
        await this.store.appendToStream(
          stream,
          events.map((e) => ({ type: e.type, data: e.data, metadata: metadataFor({ actorUserId: userId, now }, eventId) })),
          { expectedVersion: recorded.at(-1)?.streamVersion ?? 0 },
        );
        return;
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError) || attempt >= 5) throw err;
      }
    }
  }
}
