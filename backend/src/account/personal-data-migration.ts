import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { EventMetadata } from '../event-store/event-store.port';
import type { KeyStore } from '../identity/key-store';
import { ENCRYPTED_SCHEMA_VERSION, EventWithPersonalData, PERSONAL_FIELDS, sealPersonalData } from '../identity/personal-data';

export interface MigrationReport {
  /** v1 events whose personal fields were encrypted with their owner's key. */
  rekeyed: number;
  /** v1 events of a deleted account (key destroyed): personal fields set to null. */
  redacted: number;
}

const TYPES = Object.keys(PERSONAL_FIELDS) as EventWithPersonalData[];

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
    const rows = db
      .prepare<[], Row>(
        `SELECT position, type, data, metadata FROM events
         WHERE type IN (${TYPES.map((t) => `'${t}'`).join(', ')}) AND json_extract(metadata, '$.schemaVersion') = 1 ORDER BY position`,
      )
      .all();
    if (rows.length === 0) return report;

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
        const metadata: EventMetadata = { ...(JSON.parse(row.metadata) as EventMetadata), schemaVersion: ENCRYPTED_SCHEMA_VERSION };
        const changed = update.run(JSON.stringify(sealPersonalData(row.type, data, key)), JSON.stringify(metadata), row.position).changes;
        if (changed === 0) continue;
        if (key) report.rekeyed++;
        else report.redacted++;
      }
    }).immediate();
    // The old plaintext must not survive in free pages or in the write-ahead log.
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
    return report;
  } finally {
    db.close();
  }
}
