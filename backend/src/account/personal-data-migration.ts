import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import {
  copyEventId,
  WrongExpectedVersionError,
  type EventMetadata,
  type EventToAppend,
  type RecordedEvent,
} from '../event-store/event-store.port';
import type { EventStoreDbEventStore } from '../event-store/eventstoredb-event-store';
import type { KeyStore } from '../identity/key-store';
import {
  ENCRYPTED_SCHEMA_VERSION,
  EventWithPersonalData,
  hasPersonalData,
  PERSONAL_FIELDS,
  sealedMetadata,
  sealPersonalData,
} from '../identity/personal-data';

export interface MigrationReport {
  /** v1 events whose personal fields were encrypted with their owner's key. */
  rekeyed: number;
  /** v1 events of a deleted account (key destroyed): personal fields set to null. */
  redacted: number;
}

const TYPES = Object.keys(PERSONAL_FIELDS) as EventWithPersonalData[];
/** The table in events.sqlite, and its row, that keep the last position the SQLite migration looked at. */
const SCANNED_TABLE = 'maintenance_scans';
const SCANNED = 'personal-data-v1';

// ---- pure helpers, shared by both adapters' migrations ----------------------------------------------------

/** Whether an event still holds its personal fields in plaintext: an identity event before schemaVersion 2. */
export function needsRekeying(type: string, metadata: Pick<EventMetadata, 'schemaVersion'>): type is EventWithPersonalData {
  return hasPersonalData(type) && metadata.schemaVersion < ENCRYPTED_SCHEMA_VERSION;
}

/**
 * A v1 identity event re-keyed: its personal fields encrypted with the owner's key (or redacted to null when the
 * key is gone, `key === null`) and schemaVersion 2; the rest of the data and metadata as they were.
 */
export function rekeyed<D extends Record<string, unknown>>(
  type: EventWithPersonalData,
  data: D,
  metadata: EventMetadata,
  key: Buffer | null,
): { data: D; metadata: EventMetadata } {
  return { data: sealPersonalData(type, data, key), metadata: sealedMetadata(metadata) };
}

interface Row {
  position: number;
  type: EventWithPersonalData;
  data: string;
  metadata: string;
}

/**
 * The embedded default's one-off migration of identity events written before personal data was encrypted
 * (schemaVersion 1, plaintext): each is RE-KEYED IN PLACE in events.sqlite — its personal fields encrypted with
 * the owner's key, its metadata set to schemaVersion 2 — the one sanctioned exception to "stored JSON is never
 * changed" (see docs/decisions.md: erasure is impossible while plaintext copies stay in the log).
 *
 * - Idempotent: only rows still at schemaVersion 1 are touched (each UPDATE re-checks it), so running it again,
 *   or after a crash, does nothing more.
 * - Transactional: all rows in one IMMEDIATE transaction; a failure leaves the file as it was.
 * - Leaves no plaintext behind: secure_delete zeroes the replaced bytes, VACUUM rewrites the file, and the WAL is
 *   checkpointed and truncated.
 * Runs at start-up before the event store opens the file (the embedded default is one process).
 */
export async function migratePersonalDataInSqlite(file: string, keys: KeyStore): Promise<MigrationReport> {
  const report: MigrationReport = { rekeyed: 0, redacted: 0 };
  if (!existsSync(file)) return report;
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const hasEvents = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
    if (!hasEvents) return report;
    // Every start runs this: it looks at the events appended since the last run only (an import of an old export
    // may add v1 events; the app writes none), not through the whole file again (0.5 s at a million events).
    db.exec(`CREATE TABLE IF NOT EXISTS ${SCANNED_TABLE} (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID`);
    const scannedTo = db.prepare<[], number>(`SELECT position FROM ${SCANNED_TABLE} WHERE name = '${SCANNED}'`).pluck().get() ?? 0;
    const head = db.prepare<[], number>('SELECT COALESCE(MAX(position), 0) FROM events').pluck().get()!;
    const scanned = db.prepare<[number]>(
      `INSERT INTO ${SCANNED_TABLE} (name, position) VALUES ('${SCANNED}', ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
    );
    const rows = db
      .prepare<[number, number], Row>(
        `SELECT position, type, data, metadata FROM events WHERE position > ? AND position <= ?
         AND type IN (${TYPES.map((t) => `'${t}'`).join(', ')}) AND json_extract(metadata, '$.schemaVersion') = 1 ORDER BY position`,
      )
      .all(scannedTo, head);
    if (rows.length === 0) {
      if (head > scannedTo) scanned.run(head);
      return report;
    }

    // Keys first (the key store may be asynchronous), then one synchronous transaction.
    const keyOf = new Map<string, Buffer | null>();
    for (const row of rows) {
      const userId = String((JSON.parse(row.data) as { userId: unknown }).userId);
      if (!keyOf.has(userId)) keyOf.set(userId, await keys.keyFor(userId));
    }

    db.pragma('secure_delete = ON');
    const update = db.prepare(
      "UPDATE events SET data = ?, metadata = ? WHERE position = ? AND json_extract(metadata, '$.schemaVersion') = 1",
    );
    db.transaction(() => {
      for (const row of rows) {
        const data = JSON.parse(row.data) as Record<string, unknown>;
        const key = keyOf.get(String(data.userId)) ?? null;
        const sealed = rekeyed(row.type, data, JSON.parse(row.metadata) as EventMetadata, key);
        const changed = update.run(JSON.stringify(sealed.data), JSON.stringify(sealed.metadata), row.position).changes;
        if (changed === 0) continue;
        if (key) report.rekeyed++;
        else report.redacted++;
      }
      scanned.run(head);
    }).immediate();
    // The old plaintext must not survive in free pages or in the write-ahead log.
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
    return report;
  } finally {
    db.close();
  }
}

// ---- EventStoreDB ------------------------------------------------------------------------------------------

export interface EventStoreDbMigrationReport extends MigrationReport {
  /** Streams copied and truncated by this run (their old events stay in the server's log until a scavenge). */
  streams: number;
  /** Events copied (every event of those streams, identity or not). */
  copied: number;
}

/** What the EventStoreDB migration uses of the adapter (the port, plus stream metadata and truncation). */
export type MigratableEventStore = Pick<
  EventStoreDbEventStore,
  'readAll' | 'readStream' | 'appendToStream' | 'headPosition' | 'streamMetadata' | 'setStreamMetadata' | 'truncateBefore'
>;


/**
 * Where the migration keeps how far it has looked through `$all` (`scannedUpTo`, a position): the metadata of a
 * stream that has no events. A later run only looks at what was written after.
 */
export const MIGRATION_CHECKPOINT_STREAM = 'migrations-personal-data';
const CHECKPOINT_KEY = 'scannedUpTo';
const SCAN_PAGE = 1000;
/** Reads of one stream before giving up (each write that lost a race, or a step done, reads it again). */
const STREAM_ATTEMPTS = 10;

/** What a stream (its readable events, in order) still needs. */
export type RekeyStep =
  | { step: 'none' }
  /** Holds v1 identity events and no copies of them: copy every event. */
  | { step: 'copy' }
  /** Holds copies of its events from `firstCopyVersion` on, the originals still readable (a run stopped between the two steps). */
  | { step: 'truncate'; firstCopyVersion: number };

/**
 * The next step for a stream, from its readable events. The copies of a stream's events start with the copy of
 * its first readable event (`rekey-<id>`): when that one is found further on, the copies were appended and only
 * the truncation is missing. Otherwise any v1 identity event left means copying (also for a v1 event appended
 * after an earlier migration, by an old version of the app still running: its copies are `rekey-rekey-…`).
 */
export function nextRekeyStep(events: readonly RecordedEvent[]): RekeyStep {
  if (events.length === 0) return { step: 'none' };
  const firstCopy = copyEventId(events[0].metadata.eventId);
  const at = events.findIndex((e, i) => i > 0 && e.metadata.eventId === firstCopy);
  if (at > 0) return { step: 'truncate', firstCopyVersion: events[at].streamVersion };
  return events.some((e) => needsRekeying(e.type, e.metadata)) ? { step: 'copy' } : { step: 'none' };
}

/** The copy of a recorded event: the same type, data and metadata, its id `rekey-<id>`; a v1 identity event re-keyed. */
export function rekeyCopy(event: RecordedEvent, key: Buffer | null): EventToAppend {
  const metadata: EventMetadata = { ...event.metadata, eventId: copyEventId(event.metadata.eventId) };
  if (!needsRekeying(event.type, event.metadata)) return { type: event.type, data: event.data, metadata };
  return { type: event.type, ...rekeyed(event.type, event.data, metadata, key) };
}

/**
 * The production store's migration of identity events written before personal data was encrypted
 * (schemaVersion 1). EventStoreDB events are immutable, so each stream holding one (`user-<id>`: identity and
 * membership events) is RE-KEYED BY COPYING (docs/decisions.md):
 * 1. one pass over `$all` after the checkpoint finds those streams (in global order);
 * 2. for each: its events are read, and copies of ALL of them are appended in order, with the version of its last
 *    event as expected version — identity events re-keyed (schemaVersion 2, personal fields encrypted with the
 *    owner's key, or redacted when the key is destroyed or the stream holds UserDeleted), the others as they
 *    were, each with the event id `rekey-<eventId>`;
 * 3. the stream is truncated before the first copy (`$tb`): stream reads return the copies only, with their own
 *    versions, and deciders go on appending after the last one;
 * 4. once every stream found is done, the checkpoint moves to the head seen at the start.
 *
 * The originals stay in `$all` (projections see the copies as new events, idempotently) and in the server's log
 * until a SCAVENGE deletes them; the client cannot start one, so after a run that truncated streams the worker asks
 * the server's HTTP API for one (`scavengeAfterMigration`, event-store/eventstoredb-scavenge.ts), or else logs that
 * an operator must (see docs/decisions.md).
 *
 * - Safe to run again, after a crash, and in several processes at once: a stream is read before each step and
 *   only what it still needs is done (`nextRekeyStep`): copies that are there are never appended again (and the
 *   deterministic ids make a retried append idempotent on the server), a missing truncation is completed, and a
 *   lost race (wrong expected version) reads again.
 * - Throws when a stream cannot be migrated; the checkpoint then stays, and the next run tries again.
 */
export async function migratePersonalDataInEventStoreDb(
  store: MigratableEventStore,
  keys: KeyStore,
  options: { checkpointStream?: string } = {},
): Promise<EventStoreDbMigrationReport> {
  const report: EventStoreDbMigrationReport = { rekeyed: 0, redacted: 0, streams: 0, copied: 0 };
  const checkpointStream = options.checkpointStream ?? MIGRATION_CHECKPOINT_STREAM;
  const checkpoint = await store.streamMetadata(checkpointStream);
  const scannedUpTo = Number(checkpoint[CHECKPOINT_KEY] ?? 0) || 0;
  const head = await store.headPosition();
  if (head <= scannedUpTo) return report;

  const streams = new Set<string>();
  for (let from = scannedUpTo; from < head; ) {
    const page = await store.readAll({ from, limit: SCAN_PAGE });
    if (page.length === 0) break;
    for (const event of page) {
      if (event.position > head) break; // written since the start (the copies among them): the next run looks
      if (needsRekeying(event.type, event.metadata)) streams.add(event.streamId);
    }
    from = page[page.length - 1].position;
  }

  const keyOf = new Map<string, Buffer | null>();
  for (const streamId of streams) await migrateStream(store, streamId, keys, keyOf, report);

  await store.setStreamMetadata(checkpointStream, { ...checkpoint, [CHECKPOINT_KEY]: head });
  return report;
}

async function migrateStream(
  store: MigratableEventStore,
  streamId: string,
  keys: KeyStore,
  keyOf: Map<string, Buffer | null>,
  report: EventStoreDbMigrationReport,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const events = await store.readStream(streamId);
    const next = nextRekeyStep(events);
    if (next.step === 'none') return;
    if (attempt > STREAM_ATTEMPTS) {
      throw new Error(`Personal data migration: stream ${streamId} still needs a ${next.step} after ${STREAM_ATTEMPTS} attempts`);
    }
    if (next.step === 'truncate') {
      await store.truncateBefore(streamId, next.firstCopyVersion);
      report.streams++;
      continue;
    }

    // A deleted account's personal data is redacted, even when its key outlived the deletion (a crash before
    // the key was destroyed: the deletion's retry destroys it).
    const deleted = events.some((e) => e.type === 'UserDeleted');
    const copies: EventToAppend[] = [];
    let encrypted = 0;
    let redacted = 0;
    for (const event of events) {
      let key: Buffer | null = null;
      if (needsRekeying(event.type, event.metadata)) {
        const userId = String(event.data.userId);
        if (!deleted && !keyOf.has(userId)) keyOf.set(userId, await keys.keyFor(userId));
        key = deleted ? null : (keyOf.get(userId) ?? null);
        if (key) encrypted++;
        else redacted++;
      }
      copies.push(rekeyCopy(event, key));
    }
    let appended;
    try {
      appended = await store.appendToStream(streamId, copies, { expectedVersion: events[events.length - 1].streamVersion });
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) continue; // appended to meanwhile: read it again
      throw err;
    }
    report.rekeyed += encrypted;
    report.redacted += redacted;
    report.copied += copies.length;
    await store.truncateBefore(streamId, appended.nextVersion - copies.length + 1);
    report.streams++;
  }
}
