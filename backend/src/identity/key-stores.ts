import Database from 'better-sqlite3';
import type { KeyArchive, KeyRecord, KeyStore } from './key-store';
import { newKey } from './personal-data';

/* The adapters of the key-store port (key-store.ts) behind one cache: SQLite here, MongoDB in mongo-key-store.ts. */

/** A few thousand keys in memory in front of the store: reads of names and sessions check keys often. */
const CACHE_SIZE = 5000;
/**
 * A live key is trusted from the cache this long: another replica may destroy it meanwhile, and its sessions must
 * end within this delay there too. A destroyed key is final and stays cached.
 */
const LIVE_KEY_TTL_MS = 5000;
/** Records read per query by `records()`. */
export const RECORDS_PAGE = 1000;

export abstract class CachedKeyStore implements KeyStore, KeyArchive {
  /** userId → key (null for a destroyed key) and when it was read. */
  private readonly cache = new Map<string, { key: Buffer | null; at: number }>();

  protected abstract load(userId: string): Promise<Buffer | null | undefined>;
  protected abstract insertIfAbsent(userId: string, key: Buffer): Promise<void>;
  protected abstract tombstone(userId: string, at: Date): Promise<void>;
  abstract records(): AsyncIterable<KeyRecord>;
  abstract close(): Promise<void>;

  stored(userId: string): Promise<Buffer | null | undefined> {
    return this.load(userId);
  }

  async restore(record: KeyRecord): Promise<void> {
    if (record.key) await this.insertIfAbsent(record.userId, record.key);
    else await this.tombstone(record.userId, record.destroyedAt ?? new Date());
    this.cache.delete(record.userId);
  }

  private remember(userId: string, key: Buffer | null): void {
    this.cache.delete(userId);
    this.cache.set(userId, { key, at: Date.now() });
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
  }

  private async lookup(userId: string): Promise<Buffer | null | undefined> {
    const cached = this.cache.get(userId);
    if (cached && (cached.key === null || Date.now() - cached.at < LIVE_KEY_TTL_MS)) return cached.key;
    const stored = await this.load(userId);
    if (stored !== undefined) this.remember(userId, stored);
    return stored;
  }

  async keyFor(userId: string): Promise<Buffer | null> {
    const known = await this.lookup(userId);
    if (known !== undefined) return known;
    // Two processes may create at once: the store keeps the first, and everyone reads that one back.
    await this.insertIfAbsent(userId, newKey());
    const stored = (await this.load(userId)) ?? null;
    this.remember(userId, stored);
    return stored;
  }

  async existingKey(userId: string): Promise<Buffer | null> {
    return (await this.lookup(userId)) ?? null;
  }

  async isDestroyed(userId: string): Promise<boolean> {
    return (await this.lookup(userId)) === null;
  }

  async destroy(userId: string): Promise<void> {
    await this.tombstone(userId, new Date());
    this.remember(userId, null);
  }
}

/**
 * `keys.sqlite`: `user_keys(user_id, key, destroyed_at)`. secure_delete makes SQLite overwrite the bytes of a
 * destroyed key instead of leaving them in a free page, and the rollback journal (not WAL) means no copy of an
 * old page outlives the transaction in a log file.
 */
export class SqliteKeyStore extends CachedKeyStore {
  private readonly db: Database.Database;
  private readonly stmt;

  constructor(file: string) {
    super();
    this.db = new Database(file);
    this.db.pragma('journal_mode = DELETE');
    this.db.pragma('secure_delete = ON');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec('CREATE TABLE IF NOT EXISTS user_keys (user_id TEXT PRIMARY KEY, key BLOB, destroyed_at TEXT)');
    this.stmt = {
      get: this.db.prepare<[string], { key: Buffer | null }>('SELECT key FROM user_keys WHERE user_id = ?'),
      insert: this.db.prepare('INSERT INTO user_keys (user_id, key) VALUES (?, ?) ON CONFLICT(user_id) DO NOTHING'),
      destroy: this.db.prepare(
        'INSERT INTO user_keys (user_id, key, destroyed_at) VALUES (?, NULL, ?) ON CONFLICT(user_id) DO UPDATE SET key = NULL, destroyed_at = COALESCE(destroyed_at, excluded.destroyed_at)',
      ),
      page: this.db.prepare<[string, number], { user_id: string; key: Buffer | null; destroyed_at: string | null }>(
        'SELECT user_id, key, destroyed_at FROM user_keys WHERE user_id > ? ORDER BY user_id LIMIT ?',
      ),
    };
  }

  /** Synchronous access for the startup migration, which re-keys inside one SQLite transaction. */
  keyForSync(userId: string): Buffer | null {
    const row = this.stmt.get.get(userId);
    if (row) return row.key;
    this.stmt.insert.run(userId, newKey());
    return this.stmt.get.get(userId)?.key ?? null;
  }

  protected async load(userId: string): Promise<Buffer | null | undefined> {
    const row = this.stmt.get.get(userId);
    return row ? row.key : undefined;
  }

  protected async insertIfAbsent(userId: string, key: Buffer): Promise<void> {
    this.stmt.insert.run(userId, key);
  }

  protected async tombstone(userId: string, at: Date): Promise<void> {
    this.stmt.destroy.run(userId, at.toISOString());
  }

  async *records(): AsyncGenerator<KeyRecord> {
    for (let after = ''; ; ) {
      const rows = this.stmt.page.all(after, RECORDS_PAGE);
      for (const row of rows) {
        yield { userId: row.user_id, key: row.key, destroyedAt: row.destroyed_at ? new Date(row.destroyed_at) : null };
      }
      if (rows.length < RECORDS_PAGE) return;
      after = rows[rows.length - 1].user_id;
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
