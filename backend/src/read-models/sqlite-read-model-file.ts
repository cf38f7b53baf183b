import Database from 'better-sqlite3';
import { chmodSync, existsSync } from 'node:fs';
import { codeVersionKey, type Query } from './read-model-store.port';

/** SQLite's page cache (KiB), and while loading in bulk (the start-up catch-up). */
export const CACHE_KIB = 16_000;
export const BULK_CACHE_KIB = 128_000;

/**
 * The read-model file's format, a checkpoint of its own. 2 since the start-up build stopped leaving older versions
 * of documents in the read cache (2026-11-26): the app then answered them, and the live path evolved them and wrote
 * them back. A file with checkpoints and no format was built before, so its documents may be wrong: every projection
 * it holds is rebuilt at the next start (their code versions forgotten, as `projections rebuild` does).
 */
const FORMAT_CHECKPOINT = '$format';
const READ_MODEL_FORMAT = 2;
const CODE_VERSION_PREFIX = codeVersionKey('');

export interface DocRow {
  position: number;
  doc: string | null;
}

/** A document's row as a query reads it (tombstones left out). */
export interface StoredRow {
  id: string;
  position: number;
  doc: string;
}

/**
 * Opens (creating when new) the read-model file of SqliteReadModelStore: its tables, its prepared statements, and
 * what it already holds of collections, indexes and checkpoints.
 */
export function openReadModelFile(file: string, logger?: { warn(message: string): void }) {
  const collectionIds = new Map<string, number>();
  /** collection id → declared index fields */
  const indexes = new Map<number, string[]>();
  const checkpoints = new Map<string, number>();
  const created = file !== ':memory:' && !existsSync(file);
  const db = new Database(file);
  if (created) chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  // Read models can be rebuilt from the events: a commit lost to a power cut is replayed from the checkpoint.
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = -${CACHE_KIB}`);
  const hasDocs = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'docs'").get() !== undefined;
  if (!hasDocs) {
    // Rows in the order written, found through a small index: a rebuild appends its documents instead of
    // inserting them at random places (their ids) all over the table. (Files from before keep their
    // "docs" keyed by (c, id) WITHOUT ROWID: the statements below work on both.)
    db.exec(`
      CREATE TABLE docs (c INTEGER NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, doc TEXT);
      CREATE UNIQUE INDEX docs_by_id ON docs (c, id);`);
  }
  db.exec(`
    CREATE TABLE IF NOT EXISTS collections (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE IF NOT EXISTS idx (c INTEGER NOT NULL, field TEXT NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL,
      PRIMARY KEY (c, field, key, id)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS indexes (c INTEGER NOT NULL, field TEXT NOT NULL, PRIMARY KEY (c, field)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
  `);
  const stmt = {
    addCollection: db.prepare<[string], { id: number }>('INSERT INTO collections (name) VALUES (?) RETURNING id'),
    get: db.prepare<[number, string], DocRow>('SELECT position, doc FROM docs WHERE c = ? AND id = ?'),
    scan: db.prepare<[number], StoredRow>('SELECT id, position, doc FROM docs WHERE c = ? AND doc IS NOT NULL'),
    byKey: db.prepare<[number, string, string], StoredRow>(
      'SELECT d.id, d.position, d.doc FROM idx i JOIN docs d ON d.c = i.c AND d.id = i.id WHERE i.c = ? AND i.field = ? AND i.key = ? AND d.doc IS NOT NULL',
    ),
    countKey: db.prepare<[number, string, string], number>('SELECT COUNT(*) FROM idx WHERE c = ? AND field = ? AND key = ?').pluck(),
    addKey: db.prepare<[number, string, string, string], void>('INSERT OR IGNORE INTO idx (c, field, key, id) VALUES (?, ?, ?, ?)'),
    addIndex: db.prepare<[number, string], void>('INSERT OR IGNORE INTO indexes (c, field) VALUES (?, ?)'),
    dropDocs: db.prepare<[number], void>('DELETE FROM docs WHERE c = ?'),
    dropKeys: db.prepare<[number], void>('DELETE FROM idx WHERE c = ?'),
  };
  for (const row of db.prepare<[], { id: number; name: string }>('SELECT id, name FROM collections').all()) {
    collectionIds.set(row.name, row.id);
  }
  for (const row of db.prepare<[], { c: number; field: string }>('SELECT c, field FROM indexes').all()) {
    const fields = indexes.get(row.c) ?? [];
    fields.push(row.field);
    indexes.set(row.c, fields);
  }
  for (const row of db.prepare<[], { name: string; position: number }>('SELECT name, position FROM checkpoints').all()) {
    checkpoints.set(row.name, row.position);
  }
  // No format: a new file (no checkpoints yet), or one built before the format (every projection is rebuilt).
  const rebuilt = checkpoints.has(FORMAT_CHECKPOINT) ? [] : [...checkpoints.keys()].filter((name) => name.startsWith(CODE_VERSION_PREFIX));
  if (!checkpoints.has(FORMAT_CHECKPOINT)) {
    const setCheckpoint = db.prepare<[string, number], void>('INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position');
    db.transaction(() => {
      for (const name of rebuilt) setCheckpoint.run(name, 0);
      setCheckpoint.run(FORMAT_CHECKPOINT, READ_MODEL_FORMAT);
    })();
    for (const name of rebuilt) checkpoints.set(name, 0);
    checkpoints.set(FORMAT_CHECKPOINT, READ_MODEL_FORMAT);
  }
  if (rebuilt.length > 0) {
    logger?.warn(
      `${file} was built by an earlier version of Joy whose start-up build could keep out-of-date documents: the read ` +
        `models of ${rebuilt.map((name) => name.slice(CODE_VERSION_PREFIX.length)).join(', ')} are built again from the events at the start of the app`,
    );
  }
  return { db, stmt, collectionIds, indexes, checkpoints };
}

/** After a load (its write-ahead log holds all it wrote): fold the log into the file, giving its space back. */
export function foldLog(db: Database.Database, file: string, logger: { warn(message: string): void }): void {
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (err) {
    logger.warn(`The write-ahead log of ${file} was not folded in: ${(err as Error).message}`);
  }
}

export type ReadModelStatements = ReturnType<typeof openReadModelFile>['stmt'];

/** The rows a query looks at: those of its most selective indexed field's key, or else the whole collection's. */
export function candidateRows(stmt: ReadModelStatements, indexed: readonly string[], c: number, query: Query): IterableIterator<StoredRow> {
  let best: { field: string; key: string; count: number } | null = null;
  for (const field of Object.keys(query)) {
    if (!indexed.includes(field)) continue;
    const key = JSON.stringify(query[field]);
    const count = stmt.countKey.get(c, field, key)!;
    if (!best || count < best.count) best = { field, key, count };
  }
  return best ? stmt.byKey.iterate(c, best.field, best.key) : stmt.scan.iterate(c);
}
