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

/**
 * A session store that can end every session of one person at once (the SQLite one). Others need not for an
 * account deletion: the guard refuses every session of a deleted account anyway (its key is destroyed). A password
 * reset ends the sessions only where the store can (the Redis store keeps them until they expire).
 */
export interface EndsSessionsOfUser {
  destroyAllOf(userId: string): number;
}

export function endsSessionsOfUser(store: object): store is EndsSessionsOfUser {
  return typeof (store as Partial<EndsSessionsOfUser>).destroyAllOf === 'function';
}
