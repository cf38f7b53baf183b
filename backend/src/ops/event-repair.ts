import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

/*
 * `npm run events -- verify` and `quarantine <position>`: finding and moving aside events of the SQLite event
 * store that cannot be read, so that the app can start again on everything else (docs: README, Operations).
 */

export interface DamagedEvent {
  position: number;
  reason: string;
}

export interface Verification {
  /** Events read. */
  checked: number;
  damaged: DamagedEvent[];
  /** Damage of the file itself (SQLite's quick_check), which only a backup repairs. */
  fileProblems: string[];
}

interface Row {
  position: number;
  stream_id: string;
  stream_version: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
}

/** Why a stored event cannot be used, or null when it reads as an event. */
export function eventProblem(row: Pick<Row, 'type' | 'data' | 'metadata'>): string | null {
  if (typeof row.type !== 'string' || row.type === '') return 'it has no type';
  for (const field of ['data', 'metadata'] as const) {
    let value: unknown;
    try {
      value = JSON.parse(row[field]);
    } catch (err) {
      return `its ${field} is not JSON (${(err as Error).message})`;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return `its ${field} is not a JSON object`;
    if (field === 'metadata' && typeof (value as { eventId?: unknown }).eventId !== 'string') return 'its metadata has no eventId';
  }
  return null;
}

function open(file: string, readonly: boolean): Database.Database {
  if (!existsSync(file)) throw new Error(`No event store at ${file} (set DATA_DIR)`);
  return new Database(file, { readonly, fileMustExist: true });
}

/** Reads every event of the file (read-only: safe beside a running app) and SQLite's own quick check. */
export function verifyEvents(file: string): Verification {
  const db = open(file, true);
  const result: Verification = { checked: 0, damaged: [], fileProblems: [] };
  try {
    try {
      const check = db.prepare<[], string>('PRAGMA quick_check').pluck().all();
      if (!(check.length === 1 && check[0] === 'ok')) result.fileProblems.push(...check.slice(0, 20));
    } catch (err) {
      result.fileProblems.push((err as Error).message);
    }
    const page = db.prepare<[number], Row>('SELECT position, stream_id, stream_version, event_id, type, data, metadata FROM events WHERE position > ? ORDER BY position LIMIT 1000');
    let from = 0;
    for (;;) {
      let rows: Row[];
      try {
        rows = page.all(from);
      } catch (err) {
        result.damaged.push({ position: from + 1, reason: `the file cannot be read from here on (${(err as Error).message})` });
        break;
      }
      if (rows.length === 0) break;
      for (const row of rows) {
        result.checked++;
        const problem = eventProblem(row);
        if (problem) result.damaged.push({ position: row.position, reason: problem });
      }
      from = rows[rows.length - 1].position;
    }
  } finally {
    db.close();
  }
  return result;
}

/**
 * Moves the damaged event at `position` out of `events` into `quarantined_events` (same columns, its bytes as they
 * were, with when and why), after backing the whole file up next to it. Refuses an event that reads fine: this
 * is a repair, not a way to delete history. Stop the app first: it must not append meanwhile.
 */
export async function quarantineEvent(file: string, position: number): Promise<{ backup: string; reason: string }> {
  const db = open(file, false);
  try {
    const row = db.prepare<[number], Row>('SELECT position, stream_id, stream_version, event_id, type, data, metadata FROM events WHERE position = ?').get(position);
    if (!row) throw new Error(`${file} holds no event at position ${position} (already quarantined?)`);
    const reason = eventProblem(row);
    if (!reason) throw new Error(`The event at position ${position} of ${file} reads fine: nothing to quarantine`);
    const backup = `${file}.before-quarantine-${position}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await db.backup(backup);
    db.transaction(() => {
      db.exec(`CREATE TABLE IF NOT EXISTS quarantined_events (
        position INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, stream_version INTEGER NOT NULL, event_id TEXT NOT NULL,
        type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, quarantined_at TEXT NOT NULL, reason TEXT NOT NULL)`);
      db.prepare(
        `INSERT INTO quarantined_events SELECT position, stream_id, stream_version, event_id, type, data, metadata, ?, ? FROM events WHERE position = ?`,
      ).run(new Date().toISOString(), reason, position);
      db.prepare('DELETE FROM events WHERE position = ?').run(position);
    })();
    return { backup, reason };
  } finally {
    db.close();
  }
}
