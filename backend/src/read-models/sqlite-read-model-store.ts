import { Logger } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { adoptFrozen, frozenDoc, keysOf, matches, ordered, type SyncDocs, valueAt } from './in-memory-read-model-store';
import type { BulkEntry, FindOptions, Query, ReadModelStore, StoredDoc } from './read-model-store.port';
import { BULK_CACHE_KIB, CACHE_KIB, candidateRows, foldLog, openReadModelFile, type ReadModelStatements } from './sqlite-read-model-file';
import { applyCommit, commitRowsOf, WriterThread } from './sqlite-commit';
import { ABSENT, cacheCommitted, DocCache, documentOfRow, type Entry, FIND_KEPT_DOCS, IdFilter, indexKeys, isPlainData, type Pending, type State, storedJson } from './sqlite-rows';

export interface SqliteReadModelOptions {
  /** How long writes wait to be committed together (ms): documents and checkpoints go in one transaction. */
  flushMs?: number;
  /** Pending document writes that make a commit at once (a rebuild writes many documents per transaction). */
  maxPending?: number;
  /** Documents kept parsed in memory (read cache). */
  cacheSize?: number;
}

/**
 * The embedded default's read models, persisted in a SQLite file (`read-models.sqlite` in DATA_DIR), so a
 * restart resumes from the checkpoints instead of replaying every event.
 *
 * - Writes are synchronous in memory (this process is the only writer) and committed in groups: every write
 *   and checkpoint of the last `flushMs` (or `maxPending` documents) goes in ONE transaction. So the file always
 *   holds documents and checkpoints of the same moment: after a crash, a projection resumes from a checkpoint
 *   its documents have reached (an event applied to some documents and not others is applied again, and the
 *   documents' position guard skips what it already has).
 * - Query semantics are the in-memory store's (and MongoDB's), with the same helpers: equality, array
 *   membership, null for a missing field, dotted paths; indexes are rows of an `idx` table (an array field has a
 *   row per element), kept with the documents in the same transaction.
 * - Documents handed out are frozen (parsed ones too), as in memory; a bounded cache keeps recently used ones.
 */
export class SqliteReadModelStore implements ReadModelStore, SyncDocs {
  private readonly logger = new Logger('ReadModels');
  private readonly db: Database.Database;
  private readonly stmt: ReadModelStatements;
  private readonly collectionIds: Map<string, number>;
  /** collection id → declared index fields */
  private readonly indexes: Map<number, string[]>;
  private readonly checkpoints: Map<string, number>;
  private readonly dirtyCheckpoints = new Set<string>();
  /** collection id → id → pending write */
  private pending = new Map<number, Map<string, Pending>>();
  private pendingCount = 0;
  /** collection id → id → committed state */
  private readonly cache: DocCache<State>;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly flushMs: number;
  private maxPending: number;
  /** Set during a bulk load (`bulk`): no timed commits, a commit per `maxPending` documents only. */
  private bulkDepth = 0;
  private readonly normalMaxPending: number;
  /**
   * Collections this process created or emptied (all their rows written by this process), and a filter of the ids
   * written to them since: an id the filter has never seen is absent without a lookup (a rebuild's new documents).
   */
  private readonly fresh = new Set<number>();
  private readonly written_ = new IdFilter();
  private readonly statements = new Map<string, Database.Statement>();
  /** During a bulk load on a file, from its first commit: the thread that writes each commit. */
  private writer: WriterThread | null = null;

  constructor(
    readonly file: string,
    options: SqliteReadModelOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 20;
    this.maxPending = this.normalMaxPending = options.maxPending ?? 20_000;
    this.cache = new DocCache<State>(options.cacheSize ?? 20_000);
    ({ db: this.db, stmt: this.stmt, collectionIds: this.collectionIds, indexes: this.indexes, checkpoints: this.checkpoints } = openReadModelFile(file, this.logger));
  }

  /** This store itself, unless a subclass or wrapper changed its async methods (they would be bypassed). */
  syncDocs(): SyncDocs | null {
    const own = SqliteReadModelStore.prototype;
    const unchanged = this.get === own.get && this.put === own.put && this.getCheckpoint === own.getCheckpoint && this.setCheckpoint === own.setCheckpoint;
    return unchanged ? this : null;
  }

  /**
   * Runs `load` as a bulk load (the start-up catch-up): its writes are committed when it calls `flush` (a batch of
   * documents with its checkpoints), or `maxPending` documents at a time, not every `flushMs`; everything is
   * committed when it ends.
   */
  async bulk<T>(load: () => Promise<T>, maxPending = 100_000): Promise<T> {
    if (this.bulkDepth++ === 0) {
      this.maxPending = Math.max(this.normalMaxPending, maxPending);
      // A larger page cache while loading, so inserts read fewer pages back (on a file, the writer thread's: `flush`).
      if (this.file === ':memory:') this.db.pragma(`cache_size = -${BULK_CACHE_KIB}`);
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
    }
    try {
      return await load();
    } finally {
      if (--this.bulkDepth === 0) {
        this.maxPending = this.normalMaxPending;
        if (!this.closed) {
          try {
            this.writeAll();
          } finally {
            await this.stopWriter();
          }
          this.db.pragma(`cache_size = -${CACHE_KIB}`);
          foldLog(this.db, this.file, this.logger);
        }
      }
    }
  }

  async ensureIndex(collection: string, field: string): Promise<void> {
    const c = this.collectionId(collection);
    const fields = this.indexes.get(c) ?? [];
    if (fields.includes(field)) return;
    this.writeAll();
    this.db.transaction(() => {
      this.stmt.addIndex.run(c, field);
      for (const row of this.stmt.scan.all(c)) {
        const doc = JSON.parse(row.doc) as StoredDoc;
        for (const key of keysOf(valueAt(doc, field))) this.stmt.addKey.run(c, field, JSON.stringify(key), doc._id);
      }
    })();
    fields.push(field);
    this.indexes.set(c, fields);
  }

  async get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null> {
    return this.getNow<T>(collection, id);
  }

  getNow<T extends object>(collection: string, id: string): (T & StoredDoc) | null {
    const c = this.collectionIds.get(collection);
    if (c === undefined) return null;
    const state = this.state(c, id);
    return state === ABSENT ? null : (state.doc as (T & StoredDoc) | null);
  }

  /** The (physical) collections this file holds: for operators' checks and the tests. */
  collectionNames(): string[] {
    return [...this.collectionIds.keys()];
  }

  async find<T extends object>(collection: string, query: Query, options: FindOptions = {}): Promise<(T & StoredDoc)[]> {
    const c = this.collectionIds.get(collection);
    if (c === undefined) return [];
    // Queries read the file: what is pending goes there first. When the disk refuses that commit (full), the query
    // still answers: the file's documents with the pending writes laid over them.
    let unwritten: Map<string, Pending> | undefined;
    try {
      this.writeAll();
    } catch (err) {
      this.logger.error(`Read models not written to ${this.file}: ${(err as Error).message}`);
      unwritten = this.pending.get(c);
    }
    const fields = Object.keys(query);
    const rows = candidateRows(this.stmt, this.indexes.get(c) ?? [], c, query);
    const results: StoredDoc[] = [];
    for (let i = 0, row = rows.next(); !row.done; row = rows.next(), i++) {
      if (unwritten?.has(row.value.id)) continue;
      const doc = documentOfRow(this.cache, c, row.value, i < FIND_KEPT_DOCS);
      if (fields.every((field) => matches(valueAt(doc, field), query[field]))) results.push(doc);
    }
    for (const id of unwritten?.keys() ?? []) {
      const doc = (this.state(c, id) as Entry).doc;
      if (doc && fields.every((field) => matches(valueAt(doc, field), query[field]))) results.push(doc);
    }
    return ordered(results, options) as (T & StoredDoc)[];
  }

  async put(collection: string, id: string, doc: object | null, position: number): Promise<boolean> {
    return this.putNow(collection, id, doc, position);
  }

  putNow(collection: string, id: string, doc: object | null, position: number): boolean {
    const c = this.collectionId(collection);
    if (this.positionIn(c, id) >= position) return false;
    this.stage(c, id, position, { doc: doc === null ? null : frozenDoc(doc, id, position), position });
    this.written();
    return true;
  }

  /**
   * Many guarded writes (a catch-up's or a rebuild's batch): each document is serialised at once, neither copied
   * nor frozen (it is parsed again only if read before the commit), with its index keys.
   */
  async bulkPut(collection: string, entries: readonly BulkEntry[]): Promise<number> {
    const c = this.collectionId(collection);
    const fields = this.indexes.get(c);
    const guardedFields = fields?.some((field) => field.startsWith('_')) ?? false;
    let written = 0;
    for (const { id, doc, position } of entries) {
      if (doc !== null && (guardedFields || !isPlainData(doc))) {
        // Something JSON alone would not store as put does: put's copy.
        if (this.putNow(collection, id, doc, position)) written++;
        continue;
      }
      if (this.positionIn(c, id) >= position) continue;
      const keys = fields && doc ? fields.map((field) => indexKeys(doc as StoredDoc, field)) : undefined;
      this.stage(c, id, position, null, storedJson(doc, id, position), keys);
      written++;
    }
    if (written > 0) this.written();
    return written;
  }

  positionNow(collection: string, id: string): number {
    const c = this.collectionIds.get(collection);
    return c === undefined ? 0 : this.positionIn(c, id);
  }

  /** The position of the last write to a document (a tombstone's too); 0 when there is none. */
  private positionIn(c: number, id: string): number {
    const pending = this.pending.get(c)?.get(id) ?? this.writer?.inFlight(c, id);
    if (pending) return pending.position;
    const state = this.state(c, id);
    return state === ABSENT ? 0 : state.position;
  }

  private stage(c: number, id: string, position: number, next: Entry | null, json?: string | null, keys?: string[][]): void {
    let writes = this.pending.get(c);
    if (!writes) this.pending.set(c, (writes = new Map()));
    const existing = writes.get(id);
    if (existing) {
      existing.next = next;
      existing.position = position;
      existing.json = json;
      existing.keys = keys;
      return;
    }
    const base = this.cache.get(c, id);
    // The state the commit before leaves is needed only to remove its index keys at this commit.
    const inFlight = base === undefined ? this.writer?.inFlight(c, id) : undefined;
    const file = base !== undefined ? base : inFlight ? this.state(c, id) : this.indexes.has(c) ? this.read(c, id) : ABSENT;
    writes.set(id, { collection: c, id, next, position, json, keys, base: file });
    if (this.fresh.has(c)) this.written_.add(c, id);
    if (base !== undefined) this.cache.delete(c, id);
    this.pendingCount++;
  }

  async getCheckpoint(name: string): Promise<number> {
    return this.getCheckpointNow(name);
  }

  getCheckpointNow(name: string): number {
    return this.checkpoints.get(name) ?? 0;
  }

  async setCheckpoint(name: string, position: number): Promise<void> {
    this.setCheckpointNow(name, position);
  }

  setCheckpointNow(name: string, position: number): void {
    this.checkpoints.set(name, position);
    this.dirtyCheckpoints.add(name);
    this.written();
  }

  async dropCollection(collection: string): Promise<void> {
    const c = this.collectionIds.get(collection);
    if (c === undefined) return;
    this.writeAll();
    this.db.transaction(() => {
      this.stmt.dropDocs.run(c);
      this.stmt.dropKeys.run(c);
    })();
    this.cache.dropCollection(c);
    this.fresh.add(c);
  }

  /**
   * Commits every pending write and checkpoint now, in one transaction; during a bulk load on a file, hands them to
   * the writer thread once it has written the commit before (`writeAll` waits for this one too).
   */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pendingCount === 0 && this.dirtyCheckpoints.size === 0) return;
    const checkpoints = [...this.dirtyCheckpoints];
    const rows = commitRowsOf(this.pending, this.indexes, checkpoints.map((name) => [name, this.checkpoints.get(name)!]));
    // Once the writer thread's commit before is written (also a bulk load's last): no older commit lands after this.
    this.settleWriter();
    if (this.bulkDepth > 0 && this.file !== ':memory:') {
      // Written by a thread of its own while this one folds on (started at the first commit; ':memory:' can't share).
      (this.writer ??= new WriterThread(this.file)).commit(rows, this.pending, checkpoints);
    } else {
      applyCommit(this.db, rows, this.statements);
      this.committed(this.pending);
    }
    this.pending = new Map();
    this.pendingCount = 0;
    this.dirtyCheckpoints.clear();
  }

  /** A bulk load lets go of the last commit's documents once the writer thread has written it (less memory). */
  releaseWritten(): void {
    if (this.writer?.written()) this.settleWriter();
  }

  /** Commits everything pending and waits until the writer thread (if any) has written it: the file is up to date. */
  private writeAll(): void {
    this.flush();
    this.settleWriter();
  }

  /**
   * Waits for the writer thread's commit. Written: its states become cache entries. Failed: its writes and
   * checkpoints are pending again (where no later write replaced them) and go with the next commit.
   */
  private settleWriter(): void {
    const settled = this.writer?.settle();
    if (!settled?.error) return settled ? this.committed(settled.writes) : undefined;
    for (const [c, writes] of settled.writes) {
      for (const [id, w] of writes) {
        const later = this.pending.get(c)?.get(id);
        if (later) later.base = w.base;
        else this.stage(c, id, w.position, w.next, w.json, w.keys);
      }
    }
    for (const name of settled.checkpoints) this.dirtyCheckpoints.add(name);
    throw settled.error;
  }

  /** Committed writes become what the read cache knows of their documents (unless written again since). */
  private committed(writes: Map<number, Map<string, Pending>>): void {
    cacheCommitted(this.cache, writes, writes === this.pending ? undefined : this.pending);
  }

  private async stopWriter(): Promise<void> {
    const writer = this.writer;
    this.writer = null;
    await writer?.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.writeAll();
    } finally {
      await this.stopWriter();
    }
    this.closed = true;
    this.db.close();
  }

  /** After a write: a commit soon (or now, when enough is pending). */
  private written(): void {
    if (this.closed) throw new Error('The read-model store is closed');
    if (this.pendingCount >= this.maxPending) {
      this.flush();
      return;
    }
    if (!this.timer && this.bulkDepth === 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        try {
          this.flush();
        } catch (err) {
          // Nothing was committed; the writes stay pending and go with the next commit.
          this.logger.error(`Read models not written to ${this.file}: ${(err as Error).message}`);
        }
      }, this.flushMs);
      this.timer.unref();
    }
  }

  private state(c: number, id: string): State {
    const pending = this.pending.get(c)?.get(id) ?? this.writer?.inFlight(c, id);
    if (pending) {
      pending.next ??= { doc: pending.json ? adoptFrozen(JSON.parse(pending.json) as StoredDoc) : null, position: pending.position };
      return pending.next;
    }
    const cached = this.cache.get(c, id);
    if (cached !== undefined) return cached;
    const state = this.read(c, id);
    // Nor a cache entry for each of them.
    if (state !== ABSENT || !this.fresh.has(c)) this.cache.set(c, id, state);
    return state;
  }

  private read(c: number, id: string): State {
    if (this.fresh.has(c) && !this.written_.has(c, id)) return ABSENT;
    const row = this.stmt.get.get(c, id);
    if (!row) return ABSENT;
    return { doc: row.doc === null ? null : adoptFrozen(JSON.parse(row.doc) as StoredDoc), position: row.position };
  }

  private collectionId(name: string): number {
    let c = this.collectionIds.get(name);
    if (c === undefined) {
      c = this.stmt.addCollection.get(name)!.id;
      this.collectionIds.set(name, c);
      this.fresh.add(c);
    }
    return c;
  }
}
