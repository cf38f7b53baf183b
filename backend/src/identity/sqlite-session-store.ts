import Database from 'better-sqlite3';
import session from 'express-session';
import type { SignedInLookup, SignedInSession } from './session-store.port';

/** Rolling sessions touch on every request; a new expiry is written at most once a minute. */
const TOUCH_EVERY_MS = 60 * 1000;
/** Sessions kept in memory in front of the file (the embedded default is one process). */
const CACHE_SIZE = 20_000;

interface Cached {
  json: string;
  /** The expiry last written to the file. */
  expires: number;
  /** Who is signed in, read from `json` once (see `signedIn`). */
  signedIn?: SignedInSession;
}

/**
 * express-session store in a SQLite file, so the embedded default keeps people signed in across restarts.
 * Reads are served from a bounded in-memory cache in front of the file; expired sessions are removed lazily
 * on read and by a periodic sweep.
 */
export class SqliteSessionStore extends session.Store implements SignedInLookup {
  private readonly db: Database.Database;
  private readonly sweeper: NodeJS.Timeout;
  private readonly statements;
  private readonly cache = new Map<string, Cached>();

  constructor(file: string, private readonly defaultTtlMs = 24 * 3600 * 1000) {
    super();
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // A session lost to a power cut only means signing in again; no need to sync every write to disk.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS sessions (sid TEXT PRIMARY KEY, data TEXT NOT NULL, expires INTEGER NOT NULL)');
    this.statements = {
      get: this.db.prepare<[string, number], { data: string; expires: number }>('SELECT data, expires FROM sessions WHERE sid = ? AND expires > ?'),
      set: this.db.prepare('INSERT INTO sessions (sid, data, expires) VALUES (?, ?, ?) ON CONFLICT(sid) DO UPDATE SET data = excluded.data, expires = excluded.expires'),
      touch: this.db.prepare('UPDATE sessions SET expires = ? WHERE sid = ?'),
      destroy: this.db.prepare('DELETE FROM sessions WHERE sid = ?'),
      sweep: this.db.prepare('DELETE FROM sessions WHERE expires <= ?'),
      ofUser: this.db.prepare<[string], { sid: string }>("SELECT sid FROM sessions WHERE json_extract(data, '$.passport.user') = ?"),
    };
    this.sweeper = setInterval(() => {
      const now = Date.now();
      this.statements.sweep.run(now);
      for (const [sid, entry] of this.cache) if (entry.expires <= now) this.cache.delete(sid);
    }, 15 * 60 * 1000);
    this.sweeper.unref();
  }

  private expiry(sess: session.SessionData): number {
    const expires = sess.cookie?.expires;
    return expires ? new Date(expires).getTime() : Date.now() + this.defaultTtlMs;
  }

  private remember(sid: string, entry: Cached): void {
    this.cache.delete(sid);
    this.cache.set(sid, entry);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
  }

  private live(sid: string): Cached | null {
    const now = Date.now();
    let entry = this.cache.get(sid);
    if (!entry) {
      const row = this.statements.get.get(sid, now);
      if (row) this.remember(sid, (entry = { json: row.data, expires: row.expires }));
    }
    return entry && entry.expires > now ? entry : null;
  }

  override get(sid: string, callback: (err: unknown, session?: session.SessionData | null) => void): void {
    try {
      const entry = this.live(sid);
      callback(null, entry ? JSON.parse(entry.json) : null);
    } catch (err) {
      callback(err);
    }
  }

  /** The signed-in part of a live session, without a copy of the whole (the API's short path asks on every request). */
  signedIn(sid: string): SignedInSession | null {
    const entry = this.live(sid);
    if (!entry) return null;
    if (!entry.signedIn) {
      const { passport, signedInAt } = JSON.parse(entry.json) as session.SessionData;
      entry.signedIn = Object.freeze({ user: passport?.user, signedInAt });
    }
    return entry.signedIn;
  }

  override set(sid: string, sess: session.SessionData, callback?: (err?: unknown) => void): void {
    try {
      const entry = { json: JSON.stringify(sess), expires: this.expiry(sess) };
      this.statements.set.run(sid, entry.json, entry.expires);
      this.remember(sid, entry);
      callback?.();
    } catch (err) {
      callback?.(err);
    }
  }

  override touch(sid: string, sess: session.SessionData, callback?: () => void): void {
    const expires = this.expiry(sess);
    const entry = this.cache.get(sid);
    if (!entry || expires - entry.expires > TOUCH_EVERY_MS) {
      this.statements.touch.run(expires, sid);
      if (entry) entry.expires = expires;
    }
    callback?.();
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.cache.delete(sid);
    try {
      this.statements.destroy.run(sid);
      callback?.();
    } catch (err) {
      callback?.(err);
    }
  }

  /** Ends every session of a person (account deletion); answers how many there were. */
  destroyAllOf(userId: string): number {
    const sids = this.statements.ofUser.all(userId).map((r) => r.sid);
    for (const sid of sids) this.destroy(sid);
    for (const [sid, entry] of this.cache) {
      if ((JSON.parse(entry.json) as { passport?: { user?: string } }).passport?.user === userId) this.destroy(sid);
    }
    return sids.length;
  }

  close(): void {
    clearInterval(this.sweeper);
    this.db.close();
  }
}
