import type Database from 'better-sqlite3';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { BULK_CACHE_KIB } from './sqlite-read-model-file';
import { ABSENT, compareRows, indexKeys, NO_KEYS, type Pending } from './sqlite-rows';

/*
 * A commit of SqliteReadModelStore as rows: made from the pending writes on the store's thread, written in one
 * transaction by `applyCommit`, either there or (a bulk load) on a writer thread while the next batch is folded.
 */

/** The rows of one transaction, each list flat (four values a row), so a commit crosses to a thread as a few arrays. */
export interface CommitRows {
  /** (c, id, position, json or null for a tombstone) */
  docs: unknown[];
  /** Index rows that go: (c, field, key, id) */
  removedKeys: unknown[];
  /** Index rows that come: (c, field, key, id), in key order */
  addedKeys: unknown[];
  checkpoints: [name: string, position: number][];
}

/**
 * The rows of a commit of `pending`: each document's row, the index keys it no longer has (those of its `base`, the
 * state the commit before left) and those it has now, and the checkpoints. A large commit (a rebuild's) goes in key
 * order, so that it fills the B-trees' pages one after another.
 */
export function commitRowsOf(
  pending: ReadonlyMap<number, ReadonlyMap<string, Pending>>,
  indexes: ReadonlyMap<number, readonly string[]>,
  checkpoints: [name: string, position: number][],
): CommitRows {
  const rows: CommitRows = { docs: [], removedKeys: [], addedKeys: [], checkpoints };
  const added: [field: string, key: string, id: string][] = [];
  for (const [c, writes] of pending) {
    const fields = indexes.get(c);
    const ordered = writes.size > 1000 ? [...writes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) : writes.values();
    for (const w of ordered) {
      const doc = w.json === undefined ? w.next!.doc : null;
      rows.docs.push(c, w.id, w.position, w.json !== undefined ? w.json : doc === null ? null : JSON.stringify(doc));
      if (!fields) continue;
      const before = w.base === ABSENT ? null : w.base.doc;
      for (let f = 0; f < fields.length; f++) {
        const field = fields[f];
        const old = before ? indexKeys(before, field) : NO_KEYS;
        const now = w.json !== undefined ? (w.keys?.[f] ?? NO_KEYS) : doc ? indexKeys(doc, field) : NO_KEYS;
        for (const key of old) if (!now.includes(key)) rows.removedKeys.push(c, field, key, w.id);
        for (const key of now) if (!old.includes(key)) added.push([field, key, w.id]);
      }
    }
    if (added.length > 1000) added.sort((a, b) => compareRows(a, b));
    for (const [field, key, id] of added) rows.addedKeys.push(c, field, key, id);
    added.length = 0;
  }
  return rows;
}

/** Writes a commit's rows in one transaction. */
export function applyCommit(db: Database.Database, rows: CommitRows, statements: Map<string, Database.Statement>): void {
  db.transaction(() => applyRows(db, rows, statements))();
}

/**
 * Writes rows of a commit (in the transaction the caller opened). Self-contained (no imports, nothing from its
 * module): the writer thread runs this same function from its source text. Rows go in by statements of up to 100
 * rows (a round trip into SQLite per row costs more than the row); `statements` caches them per connection.
 */
export function applyRows(db: Database.Database, rows: CommitRows, statements: Map<string, Database.Statement>): void {
  const ROWS = 100;
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const run = (head: string, tail: string, values: unknown[]) => {
    for (let start = 0; start < values.length; start += ROWS * 4) {
      const part = values.length - start > ROWS * 4 ? values.slice(start, start + ROWS * 4) : start === 0 ? values : values.slice(start);
      prepared(`${head}${Array.from({ length: part.length / 4 }, () => '(?, ?, ?, ?)').join(', ')}${tail}`).run(part);
    }
  };
  const removeKey = prepared('DELETE FROM idx WHERE c = ? AND field = ? AND key = ? AND id = ?');
  const removed = rows.removedKeys;
  for (let i = 0; i < removed.length; i += 4) removeKey.run(removed[i], removed[i + 1], removed[i + 2], removed[i + 3]);
  run('INSERT INTO docs (c, id, position, doc) VALUES ', ' ON CONFLICT (c, id) DO UPDATE SET position = excluded.position, doc = excluded.doc', rows.docs);
  run('INSERT OR IGNORE INTO idx (c, field, key, id) VALUES ', '', rows.addedKeys);
  const setCheckpoint = prepared('INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position');
  for (const [name, position] of rows.checkpoints) setCheckpoint.run(name, position);
}

/** Values (four a row) per message to the writer thread: a commit crosses in parts, so neither thread holds a copy of a whole batch. */
const VALUES_PER_PART = 8000;

/** A commit's rows in parts of at most VALUES_PER_PART values, in the order they are written; the checkpoints go with the last. */
export function partsOf(rows: CommitRows): CommitRows[] {
  const parts: CommitRows[] = [];
  let part: CommitRows = { docs: [], removedKeys: [], addedKeys: [], checkpoints: [] };
  let size = 0;
  for (const list of ['removedKeys', 'docs', 'addedKeys'] as const) {
    for (let start = 0; start < rows[list].length; ) {
      const take = Math.min(VALUES_PER_PART - size, rows[list].length - start);
      part[list] = rows[list].slice(start, start + take);
      start += take;
      size += take;
      if (size === VALUES_PER_PART) {
        parts.push(part);
        part = { docs: [], removedKeys: [], addedKeys: [], checkpoints: [] };
        size = 0;
      }
    }
  }
  part.checkpoints = rows.checkpoints;
  parts.push(part);
  return parts;
}

/**
 * What the writer thread runs: each commit's parts (`{ rows, last }`) written by `applyRows` in one transaction
 * on its own connection, the outcome posted back after the last part; `null` closes.
 */
const WRITER_SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
${applyRows.toString()}
const { port, signal } = workerData;
const statements = new Map();
let db = null;
let error = null;
let failed = null;
try {
  db = new Database(workerData.file);
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -' + workerData.cacheKib);
} catch (err) {
  failed = 'The read-model writer thread could not open ' + workerData.file + ': ' + err.message;
}
const answer = () => {
  port.postMessage(error);
  error = null;
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
};
port.on('message', (message) => {
  if (message === null) {
    try {
      db?.close();
    } catch (err) {
      error = err.message;
    }
    answer();
    port.close();
    return;
  }
  error ??= failed;
  try {
    if (!error && !db.inTransaction) db.exec('BEGIN');
    if (!error) applyRows(db, message.rows, statements);
    if (!error && message.last) db.exec('COMMIT');
  } catch (err) {
    error = err && err.message ? err.message : String(err);
  }
  if (error && db?.inTransaction) db.exec('ROLLBACK');
  if (message.last) answer();
});
`;

/** A commit the writer thread has finished: its writes and checkpoint names, and its failure if it failed. */
export interface Settled {
  writes: Map<number, Map<string, Pending>>;
  checkpoints: string[];
  error: Error | null;
}

/**
 * A thread with its own connection to the read-model file that writes a commit while the store's thread goes on (a
 * bulk load folds the next batch meanwhile), and the writes of that commit until it is written (reads find them
 * here). One commit at a time. The waits are synchronous (the store's API is), and short: a commit is handed over
 * only after the batch it follows was folded.
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  /** How many messages the thread has answered (it adds one and wakes this thread after each). */
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private sent = 0;
  private writing: Omit<Settled, 'error'> | null = null;

  constructor(file: string) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WRITER_SOURCE, {
      eval: true,
      workerData: { file, driver: require.resolve('better-sqlite3'), cacheKib: BULK_CACHE_KIB, port: port2, signal: this.signal },
      transferList: [port2],
    });
    this.worker.unref();
  }

  /** The write of a document in the commit being written, if it is there. */
  inFlight(c: number, id: string): Pending | undefined {
    return this.writing?.writes.get(c)?.get(id);
  }

  /** Hands a commit over (the one before must be settled). */
  commit(rows: CommitRows, writes: Map<number, Map<string, Pending>>, checkpoints: string[]): void {
    if (this.writing) throw new Error('A commit is being written: settle it first');
    const parts = partsOf(rows);
    parts.forEach((part, i) => this.port.postMessage({ rows: part, last: i === parts.length - 1 }));
    this.sent++;
    this.writing = { writes, checkpoints };
  }

  /** Whether the thread has answered every message: the commit handed over (if any) is written or failed. */
  written(): boolean {
    return Atomics.load(this.signal, 0) >= this.sent;
  }

  /** Waits until the commit handed over is written (or failed); null when there is none. */
  settle(): Settled | null {
    const writing = this.writing;
    if (!writing) return null;
    this.writing = null;
    return { ...writing, error: this.answer() };
  }

  /** Closes the thread's connection and ends the thread (after a commit still being written). */
  async close(): Promise<void> {
    try {
      this.settle();
      this.port.postMessage(null);
      this.sent++;
      this.answer();
    } finally {
      this.port.close();
      await this.worker.terminate();
    }
  }

  /** Waits for the thread's answer to the last message: its failure, or null. */
  private answer(): Error | null {
    while (Atomics.load(this.signal, 0) < this.sent) {
      // Woken after each answer; the time-out only lets a thread that died without one be noticed.
      const answered = Atomics.load(this.signal, 0);
      if (Atomics.wait(this.signal, 0, answered, 1000) === 'timed-out' && this.worker.threadId === -1) {
        return new Error('The read-model writer thread stopped');
      }
    }
    const message = receiveMessageOnPort(this.port);
    return message?.message ? new Error(message.message as string) : null;
  }
}
