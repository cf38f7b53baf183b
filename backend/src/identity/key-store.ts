/**
 * The key-store port: one AES-256 key per person, kept apart from the events (a separate file or database),
 * so that destroying it makes the person's encrypted personal data unreadable everywhere (crypto-shredding).
 *
 * A destroyed key leaves a tombstone: the same id never gets a key again (so a lost race cannot re-create
 * a deleted person's key), and `isDestroyed` tells that the account was deleted (sessions end on it).
 * Adapters (key-stores.ts): SQLite `keys.sqlite` in DATA_DIR (embedded default), MongoDB collection `user-keys` (MONGO_URL).
 */
export interface KeyStore {
  /** The person's key, created at the first call; null when it was destroyed. */
  keyFor(userId: string): Promise<Buffer | null>;
  /** The person's key if it exists and was not destroyed (never creates one). */
  existingKey(userId: string): Promise<Buffer | null>;
  isDestroyed(userId: string): Promise<boolean>;
  /** Destroys the key for good (idempotent). */
  destroy(userId: string): Promise<void>;
  close(): Promise<void>;
}

/** One entry of a key store as `npm run keys -- export|import` moves it: a live key, or a tombstone (key null). */
export interface KeyRecord {
  userId: string;
  key: Buffer | null;
  /** When the key was destroyed (tombstones only). */
  destroyedAt: Date | null;
}

/**
 * The whole of a key store, for moving it to another one (`npm run keys`): both adapters implement it. Not on the
 * KeyStore port: the app never lists keys.
 */
export interface KeyArchive {
  /** Every key and tombstone, in user id order, read a page at a time. */
  records(): AsyncIterable<KeyRecord>;
  /** The stored key (null: destroyed; undefined: none), bypassing the cache. */
  stored(userId: string): Promise<Buffer | null | undefined>;
  /** Writes a record where the user has none yet (a live key), or destroys the user's key (a tombstone). */
  restore(record: KeyRecord): Promise<void>;
}

/** Nest injection token of the KeyStore. */
export const KEY_STORE = 'KeyStore';
