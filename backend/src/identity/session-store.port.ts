/**
 * What the session middleware (session.ts) may ask of a session store besides express-session's own Store API:
 * who is signed in to a live session, more cheaply than `get` (which hands out a full copy). Optional: the
 * SQLite store has it (sqlite-session-store.ts), the Redis one does not.
 */

/** What the short path needs of a session. */
export interface SignedInSession {
  user?: string;
  signedInAt?: number;
}

export interface SignedInLookup {
  signedIn(sid: string): SignedInSession | null;
}
