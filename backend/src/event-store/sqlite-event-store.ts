import Database from 'better-sqlite3';
import { basename } from 'node:path';
import {
  AppendResult,
  EventStore,
  EventStoreUnavailableError,
  UnreadableEventError,
  EventToAppend,
  ExpectedVersion,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  WrongExpectedVersionError,
} from './event-store.port';

/** Events read per query by `subscribe`; bounds memory whatever the backlog. */
const PAGE_SIZE = 500;
/** Live subscriptions re-read at least this often, to see appends made by another process on the same file. */
const POLL_MS = 250;
/** Events of one stream read per turn of the event loop by `readStream` (about 10 ms of work). */
const STREAM_PAGE = 2000;

export interface SqliteEventStoreOptions {
  /**
   * 'FULL' (default) syncs the WAL at every commit, so an acknowledged append survives a power loss;
   * 'NORMAL' is much faster and still safe against a process crash, but may lose the last commits on power loss.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** How long a writer waits for another process's write lock before failing (ms). */
  busyTimeoutMs?: number;
}

interface PendingAppend {
  streamId: string;
  events: readonly EventToAppend[];
  expected: ExpectedVersion;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
  result?: AppendResult;
  error?: unknown;
}

function describeAppendError(streamId: string, err: unknown): unknown {
  // Not instanceof: the native addon's error class is per process, Jest's module registry is per file.
  const { code, message } = err as { code?: string; message?: string };
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' && /event_id/.test(message ?? '')) {
    return new Error(`Stream ${streamId}: an event id of this append already exists elsewhere in the store`);
  }
  return err;
}

/**
 * A failed write, as an operator reads it: which file and what to do (nothing of the write was stored). Errors
 * that are not about the file (a constraint) are returned as they are.
 */
export function unavailableReason(file: string, err: unknown): EventStoreUnavailableError | null {
  const code = (err as { code?: string }).code ?? '';
  const name = basename(file);
  const reason =
    code === 'SQLITE_FULL'
      ? `${name}: the disk is full; free space on it and writes resume`
      : code.startsWith('SQLITE_READONLY')
        ? `${name} is read-only; make the file and its directory writable by the app`
        : code.startsWith('SQLITE_IOERR')
          ? `${name}: the disk refused the write (${code}); check its free space and health`
          : code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED'
            ? `${name} is locked by another process`
            : code === 'SQLITE_CANTOPEN'
              ? `${name} cannot be opened; check that the directory exists and is writable`
              : null;
  return reason ? new EventStoreUnavailableError(reason, { cause: err }) : null;
}

interface EventRow {
  position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  data: string;
  metadata: string;
}

/**
 * The embedded event store: one SQLite file, one table. better-sqlite3 is synchronous, so an append runs its
 * whole transaction without yielding; with BEGIN IMMEDIATE across processes, there is a single writer at a
 * time and positions (the AUTOINCREMENT key) are assigned at commit in order: a reader never sees a gap that
 * later fills (a rolled-back append also rolls back the sequence).
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly stmt: {
    insert: Database.Statement<[string, number, string, string, string, string]>;
    streamHead: Database.Statement<[string], { version: number; position: number }>;
    streamRange: Database.Statement<[string, number, number], { event_id: string; position: number }>;
    byEventId: Database.Statement<[string], { stream_id: string; stream_version: number }>;
    readStream: Database.Statement<[string, number, number], EventRow>;
    readAll: Database.Statement<[number, number], EventRow>;
    head: Database.Statement<[], number>;
  };
  private readonly appendTx: Database.Transaction<
    (streamId: string, events: readonly EventToAppend[], expected: ExpectedVersion) => AppendResult
  >;
  /** Appends waiting for the next group commit. */
  private pending: PendingAppend[] = [];
  private readonly commitTx: Database.Transaction<(batch: PendingAppend[]) => void>;
  private readonly batchTx: Database.Transaction<(appends: readonly StreamAppend[], truncatedStreams: boolean) => AppendResult[]>;
  /** Live subscriptions waiting for an append made through this instance. */
  private readonly waiters = new Set<() => void>();
  private closed = false;
  private readonly probe: Database.Statement<[string]>;

  constructor(
    private readonly file: string,
    options: SqliteEventStoreOptions = {},
  ) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position       INTEGER PRIMARY KEY AUTOINCREMENT,
        stream_id      TEXT    NOT NULL,
        stream_version INTEGER NOT NULL,
        event_id       TEXT    NOT NULL UNIQUE,
        type           TEXT    NOT NULL,
        data           TEXT    NOT NULL,
        metadata       TEXT    NOT NULL,
        UNIQUE (stream_id, stream_version)
      );
      CREATE TABLE IF NOT EXISTS append_probe (id INTEGER PRIMARY KEY, probed_at TEXT NOT NULL)`);
    this.probe = this.db.prepare('INSERT OR REPLACE INTO append_probe (id, probed_at) VALUES (1, ?)');
    const columns = 'position, stream_id, stream_version, type, data, metadata';
    this.stmt = {
      insert: this.db.prepare(
        'INSERT INTO events (stream_id, stream_version, event_id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      streamHead: this.db.prepare(
        'SELECT stream_version AS version, position FROM events WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 1',
      ),
      streamRange: this.db.prepare(
        'SELECT event_id, position FROM events WHERE stream_id = ? AND stream_version > ? ORDER BY stream_version LIMIT ?',
      ),
      byEventId: this.db.prepare('SELECT stream_id, stream_version FROM events WHERE event_id = ?'),
      readStream: this.db.prepare(`SELECT ${columns} FROM events WHERE stream_id = ? AND stream_version > ? ORDER BY stream_version LIMIT ?`),
      readAll: this.db.prepare(`SELECT ${columns} FROM events WHERE position > ? ORDER BY position LIMIT ?`),
      head: this.db.prepare<[], number>('SELECT COALESCE(MAX(position), 0) FROM events').pluck(),
    };
    this.appendTx = this.db.transaction((streamId, events, expected) => this.appendInTx(streamId, events, expected));
    this.batchTx = this.db.transaction((appends: readonly StreamAppend[], truncatedStreams: boolean) =>
      appends.map((a) => this.appendInTx(a.streamId, a.events, a.expectedVersion, truncatedStreams)),
    );
    // Group commit: the appends that arrive in the same turn of the event loop share one transaction, so one
    // disk sync covers them all. Each runs in its own savepoint (a nested transaction), so one append's
    // conflict rolls back only that append.
    this.commitTx = this.db.transaction((batch: PendingAppend[]) => {
      for (const item of batch) {
        try {
          item.result = this.appendTx(item.streamId, item.events, item.expected);
        } catch (err) {
          item.error = err;
        }
      }
    });
  }

  /**
   * Appends to several streams in one transaction, in the order given: all of them or none (an import writes
   * whole batches, so an interrupted import never leaves a hole). Same checks as appendToStream, except that with
   * `truncatedStreams` a stream that does not exist yet may start past version 1: an EventStoreDB stream truncated
   * before an event (see the port) imported with its versions unchanged.
   */
  async appendBatch(appends: readonly StreamAppend[], options: { truncatedStreams?: boolean } = {}): Promise<AppendResult[]> {
    if (this.closed) throw new Error('The event store is closed');
    let results: AppendResult[];
    try {
      results = this.batchTx.immediate(appends, options.truncatedStreams ?? false);
    } catch (err) {
      const failed = err instanceof WrongExpectedVersionError ? err.streamId : appends[0]?.streamId ?? '';
      throw describeAppendError(failed, err);
    }
    if (results.length > 0) this.wakeSubscribers();
    return results;
  }

  async appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: { expectedVersion: ExpectedVersion },
  ): Promise<AppendResult> {
    const expected = options.expectedVersion;
    if (expected !== 'any' && !(Number.isInteger(expected) && expected >= 0)) {
      throw new RangeError(`Invalid expected version ${String(expected)}`);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      if (this.closed) return reject(new Error('The event store is closed'));
      this.pending.push({ streamId, events, expected, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.commitPending());
    });
  }

  private commitPending(): void {
    const batch = this.pending;
    if (batch.length === 0 || this.closed) return;
    this.pending = [];
    try {
      // IMMEDIATE takes the write lock up front, so two processes cannot both read the same stream head.
      this.commitTx.immediate(batch);
    } catch (err) {
      // The commit itself failed (disk full, lock timeout): nothing of the batch was written.
      const error = unavailableReason(this.file, err) ?? err;
      for (const item of batch) item.reject(error);
      return;
    }
    let appended = false;
    for (const item of batch) {
      if (item.error !== undefined) item.reject(describeAppendError(item.streamId, item.error));
      else {
        appended ||= item.events.length > 0;
        item.resolve(item.result!);
      }
    }
    if (appended) this.wakeSubscribers();
  }

  /** A real write (one row of a table of its own, synced like an append) that adds no event. */
  async probeAppend(): Promise<void> {
    if (this.closed) throw new EventStoreUnavailableError(`${basename(this.file)} is closed`);
    try {
      this.db.transaction(() => this.probe.run(new Date().toISOString())).immediate();
    } catch (err) {
      throw unavailableReason(this.file, err) ?? err;
    }
  }

  /**
   * A stream, STREAM_PAGE events per turn of the event loop: a person's ratings over years (100,000 events) read at
   * once held every other request for half a second. Appends between two pages come after the events read before
   * (streams only grow here), so the answer is the stream as it was at some moment, as a single read's is.
   */
  async readStream(streamId: string, options: { afterVersion?: number } = {}): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    let after = options.afterVersion ?? 0;
    for (;;) {
      const rows = this.rows(0, () => this.stmt.readStream.all(streamId, after, STREAM_PAGE));
      for (const row of rows) events.push(this.toRecorded(row));
      if (rows.length < STREAM_PAGE) return events;
      after = rows[rows.length - 1].stream_version;
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) throw new Error('The event store is closed');
    }
  }

  async readAll(options: { from: number; limit: number }): Promise<RecordedEvent[]> {
    if (options.limit <= 0) return [];
    return this.rows(options.from + 1, () => this.stmt.readAll.all(options.from, options.limit)).map((row) => this.toRecorded(row));
  }

  /** Runs a read; a damaged file becomes an UnreadableEventError at `position` (the first one the read wanted). */
  private rows<T>(position: number, read: () => T[]): T[] {
    try {
      return read();
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_IOERR')) {
        throw new UnreadableEventError(this.file, position, `the file is damaged: ${code}`);
      }
      throw err;
    }
  }

  private toRecorded(row: EventRow): RecordedEvent {
    try {
      return toRecorded(row);
    } catch (err) {
      throw new UnreadableEventError(this.file, row.position, `its stored JSON is damaged: ${(err as Error).message}`);
    }
  }

  async headPosition(): Promise<number> {
    return this.stmt.head.get() ?? 0;
  }

  async *subscribe(options: SubscribeOptions): AsyncGenerator<RecordedEvent> {
    const { signal } = options;
    const wanted = options.types ? new Set(options.types) : null;
    let cursor = options.from;
    while (!signal?.aborted && !this.closed) {
      // One page at a time: the next page is read only once the consumer has taken this one.
      const rows = this.rows(cursor + 1, () => this.stmt.readAll.all(cursor, PAGE_SIZE));
      if (rows.length === 0) {
        await this.waitForAppend(signal);
        continue;
      }
      for (const row of rows) {
        cursor = row.position;
        // Filtered-out rows are skipped without parsing their JSON.
        if (wanted && !wanted.has(row.type)) continue;
        yield this.toRecorded(row);
        if (signal?.aborted || this.closed) return;
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pending.length > 0) this.commitPending(); // appends already accepted are written, not dropped
    this.closed = true;
    this.wakeSubscribers(); // live subscriptions end instead of polling a closed database
    this.db.close();
  }

  private appendInTx(streamId: string, events: readonly EventToAppend[], expected: ExpectedVersion, truncatedStream = false): AppendResult {
    const head = this.stmt.streamHead.get(streamId);
    let current = head?.version ?? 0;
    if (truncatedStream && !head && typeof expected === 'number') current = expected; // starts past version 1
    if (expected === 'any') {
      // A retried 'any' append is recognised by its first event id already being in this stream.
      const first = events.length > 0 ? this.stmt.byEventId.get(events[0].metadata.eventId) : undefined;
      if (first && first.stream_id === streamId) {
        const original = this.sameEventsAt(streamId, first.stream_version - 1, events);
        if (original) return original;
      }
    } else if (expected !== current) {
      // Idempotent retry: the very same events already sit where this expected version would have put them.
      const original = expected < current ? this.sameEventsAt(streamId, expected, events) : null;
      if (original) return original;
      throw new WrongExpectedVersionError(streamId, expected, current);
    }
    let version = current;
    let position = head?.position ?? 0;
    for (const event of events) {
      version += 1;
      const info = this.stmt.insert.run(
        streamId,
        version,
        event.metadata.eventId,
        event.type,
        JSON.stringify(event.data),
        JSON.stringify(event.metadata),
      );
      position = Number(info.lastInsertRowid);
    }
    return { nextVersion: version, position };
  }

  /** The original result when `events` (by id) are exactly the stream's events after version `after`. */
  private sameEventsAt(streamId: string, after: number, events: readonly EventToAppend[]): AppendResult | null {
    if (events.length === 0) return null;
    const rows = this.stmt.streamRange.all(streamId, after, events.length);
    if (rows.length !== events.length) return null;
    for (let i = 0; i < rows.length; i++) {
      if (rows[i].event_id !== events[i].metadata.eventId) return null;
    }
    return { nextVersion: after + events.length, position: rows[rows.length - 1].position };
  }

  private wakeSubscribers(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves on the next append through this instance, after POLL_MS, on abort or on close. */
  private waitForAppend(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      signal?.addEventListener('abort', done);
      this.waiters.add(done);
    });
  }
}

/** A row as an event; throws when its JSON does not parse to an object (a damaged row). */
function toRecorded(row: EventRow): RecordedEvent {
  const data: unknown = JSON.parse(row.data);
  const metadata: unknown = JSON.parse(row.metadata);
  if (typeof data !== 'object' || data === null) throw new Error('data is not an object');
  if (typeof metadata !== 'object' || metadata === null) throw new Error('metadata is not an object');
  return {
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    position: row.position,
    type: row.type,
    data: data as RecordedEvent['data'],
    metadata: metadata as RecordedEvent['metadata'],
  };
}
