/**
 * What the session middleware (session.ts) may ask of a session store besides express-session's own Store API:
 * who is signed in to a live session, more cheaply than `get` (which hands out a full copy). Optional: the
 * SQLite store has it (sqlite-session-store.ts), the Redis one (redis-session-store.ts) does not.
 */

/** What the short path needs of a session. */
export interface SignedInSession {
  user?: string;
  signedInAt?: number;
}

export interface SignedInLookup {
  signedIn(sid: string): SignedInSession | null;
}

/**
 * A session store that can end every session of one person at once (both stores: SQLite by a column, Redis by an
 * index of each person's sessions). A password reset relies on it; an account deletion would not need it (the
 * guard refuses every session of a deleted account anyway: its key is destroyed) but ends them too.
 */
export interface EndsSessionsOfUser {
  /** Answers how many sessions there were. */
  destroyAllOf(userId: string): number | Promise<number>;
}

export function endsSessionsOfUser(store: object): store is EndsSessionsOfUser {
  return typeof (store as Partial<EndsSessionsOfUser>).destroyAllOf === 'function';
}
