import Database from 'better-sqlite3';
import session from 'express-session';

/**
 * express-session store in a SQLite file, so the embedded default keeps people signed in across restarts.
 * Expired sessions are removed lazily on read and by a periodic sweep.
 */
export class SqliteSessionStore extends session.Store {
  private readonly db: Database.Database;
  private readonly sweeper: NodeJS.Timeout;
  private readonly statements;

  constructor(file: string, private readonly defaultTtlMs = 24 * 3600 * 1000) {
    super();
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS sessions (sid TEXT PRIMARY KEY, data TEXT NOT NULL, expires INTEGER NOT NULL)');
    this.statements = {
      get: this.db.prepare<[string, number], { data: string }>('SELECT data FROM sessions WHERE sid = ? AND expires > ?'),
      set: this.db.prepare('INSERT INTO sessions (sid, data, expires) VALUES (?, ?, ?) ON CONFLICT(sid) DO UPDATE SET data = excluded.data, expires = excluded.expires'),
      touch: this.db.prepare('UPDATE sessions SET expires = ? WHERE sid = ?'),
      destroy: this.db.prepare('DELETE FROM sessions WHERE sid = ?'),
      sweep: this.db.prepare('DELETE FROM sessions WHERE expires <= ?'),
    };
    this.sweeper = setInterval(() => this.statements.sweep.run(Date.now()), 15 * 60 * 1000);
    this.sweeper.unref();
  }

  private expiry(sess: session.SessionData): number {
    const expires = sess.cookie?.expires;
    return expires ? new Date(expires).getTime() : Date.now() + this.defaultTtlMs;
  }

  override get(sid: string, callback: (err: unknown, session?: session.SessionData | null) => void): void {
    try {
      const row = this.statements.get.get(sid, Date.now());
      callback(null, row ? JSON.parse(row.data) : null);
    } catch (err) {
      callback(err);
    }
  }

  override set(sid: string, sess: session.SessionData, callback?: (err?: unknown) => void): void {
    try {
      this.statements.set.run(sid, JSON.stringify(sess), this.expiry(sess));
      callback?.();
    } catch (err) {
      callback?.(err);
    }
  }

  override touch(sid: string, sess: session.SessionData, callback?: () => void): void {
    this.statements.touch.run(this.expiry(sess), sid);
    callback?.();
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    try {
      this.statements.destroy.run(sid);
      callback?.();
    } catch (err) {
      callback?.(err);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    this.db.close();
  }
}
