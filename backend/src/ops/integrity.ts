import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Logger } from '@nestjs/common';
import { ENCRYPTED_PREFIX, newKey } from '../identity/personal-data';

/**
 * A reason not to start: the data on disk is not what the app can run on safely. main.ts prints the message
 * alone (no stack): it names the file and what to do.
 */
export class RefusedToStart extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedToStart';
  }
}

/**
 * Runs a start-up step that opens a SQLite file of DATA_DIR (or a promise of it). A file SQLite cannot read is
 * refused by name, with SQLite's word for it and `remedy`: what the file holds and what to do; other errors pass.
 */
export function refusingDamaged<T>(file: string, remedy: string, step: () => T): T {
  const refuse = (err: unknown): never => {
    const code = (err as { code?: string }).code;
    const access = cannotUse(file, err);
    if (access) throw access;
    if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw err;
    throw new RefusedToStart(`${file} is damaged (${code}: ${(err as Error).message}): ${remedy}`);
  };
  try {
    const result = step();
    return (result instanceof Promise ? result.catch(refuse) : result) as T;
  } catch (err) {
    return refuse(err);
  }
}

/**
 * A file of DATA_DIR the app may not write (another owner, a read-only mount) or a disk that is full, as a refusal
 * naming the file, the user and what to do; null for any other error. Before, such a start ended on a stack trace
 * ("attempt to write a readonly database") that named neither (a review, 11-28).
 */
export function cannotUse(file: string, err: unknown): RefusedToStart | null {
  const code = (err as { code?: string }).code ?? '';
  const message = (err as Error).message;
  const why = message.startsWith(code) ? message : `${code}: ${message}`;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return new RefusedToStart(`The disk of ${file} is full (${why}): free space on it, then start again.`);
  }
  const denied = ['EACCES', 'EPERM', 'EROFS', 'SQLITE_PERM', 'SQLITE_CANTOPEN', 'SQLITE_AUTH'].includes(code) || code.startsWith('SQLITE_READONLY');
  if (!denied) return null;
  const user = typeof process.getuid === 'function' ? ` (uid ${process.getuid()})` : '';
  return new RefusedToStart(
    `Joy cannot write ${file} (${why}). The user running Joy${user} must own DATA_DIR (${dirname(file)}) and every file in it, ` +
      `on a disk mounted read-write: check with ls -ln "${dirname(file)}", then run Joy as the owner of those files, or give them ` +
      `to this user (chown -R).`,
  );
}

/** What to do about a damaged file of DATA_DIR that only a backup can give back (its name in the backup is its own). */
export function damagedRestore(file: string, holds: string): string {
  return `it holds ${holds}, which cannot be made again. Restore ${basename(file)} from your latest backup of the data directory (npm run backup; see Backups in the README) to ${file}, then start again.`;
}

/** What to do about a damaged file of DATA_DIR that holds only what Joy makes again. */
export function damagedMoveAside(file: string, holds: string, after: string): string {
  return `it holds only ${holds}: move it aside (mv "${file}" "${file}.damaged") and start again; ${after}.`;
}

/** What to do about a damaged keys.sqlite: restore it, or, with no backup, accept the loss of the personal data. */
export function damagedKeys(keysFile: string, eventsFile: string): string {
  return (
    `${damagedRestore(keysFile, `the keys of the personal data in ${eventsFile}`)} Only if no backup exists and you accept that this ` +
    `personal data is lost, move it aside (mv "${keysFile}" "${keysFile}.damaged") and start once with ACCEPT_LOST_KEYS=1.`
  );
}

/**
 * keys.sqlite must exist when events.sqlite holds personal data encrypted with its keys: without it the app
 * would create new keys and every name and e-mail would silently read as blank, for good. Refuses to start
 * unless `acceptLoss` (ACCEPT_LOST_KEYS=1), which is recorded in the new keys.sqlite so that later starts agree.
 */
export function checkKeyFile(keysFile: string, eventsFile: string, acceptLoss: boolean): void {
  if (!existsSync(eventsFile)) return;
  const keysPresent = existsSync(keysFile) && refusingDamaged(keysFile, damagedKeys(keysFile, eventsFile), () => holdsKeysOrAcceptedLoss(keysFile));
  if (keysPresent) return checkKeysCoverPeople(keysFile, eventsFile, acceptLoss);
  const encryptedAt = firstEncryptedEvent(eventsFile);
  if (encryptedAt === null) return;
  if (!acceptLoss) {
    throw new RefusedToStart(
      `${keysFile} is missing (or holds no keys), but ${eventsFile} holds personal data encrypted with its keys ` +
        `(the first at position ${encryptedAt}). Started without it, every name and e-mail would read as blank, for good. ` +
        `Restore keys.sqlite from your latest backup of the data directory (npm run backup writes it as ` +
        `<backup>/keys.sqlite, taken with the events) to ${keysFile}, then start again. Only if no backup exists and ` +
        `you accept that this personal data is lost, ` +
        `start once with ACCEPT_LOST_KEYS=1.`,
    );
  }
  const db = new Database(keysFile);
  try {
    db.exec('CREATE TABLE IF NOT EXISTS key_loss_accepted (accepted_at TEXT NOT NULL)');
    db.prepare('INSERT INTO key_loss_accepted (accepted_at) VALUES (?)').run(new Date().toISOString());
  } finally {
    db.close();
  }
  new Logger('Integrity').warn(
    `ACCEPT_LOST_KEYS=1: starting without the keys of the personal data in ${eventsFile}; names and e-mails written before now read as blank`,
  );
}

/**
 * Every person of events.sqlite (a `user-<id>` stream) has a row in keys.sqlite: their key, or the tombstone of a
 * deleted account. A keys.sqlite older than the events (restored alone from a backup) lacks the rows of those who
 * joined since: their names and e-mails read as blank, and their next change made them a new key for good, so that
 * restoring the right file later could not give back both (a review, 11-28). Refuses, with the count and the repair;
 * ACCEPT_LOST_KEYS=1 gives those people new keys (their earlier personal data stays unreadable), once.
 * Reads the user streams through the events' (stream_id, stream_version) index: no scan of the ratings.
 */
function checkKeysCoverPeople(keysFile: string, eventsFile: string, acceptLoss: boolean): void {
  const keys = new Database(keysFile, { readonly: !acceptLoss, fileMustExist: true });
  try {
    if (keys.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'key_loss_accepted'").get()) return;
    const known = new Set(keys.prepare<[], string>('SELECT user_id FROM user_keys').pluck().all());
    const missing = peopleOf(eventsFile, (userId) => !known.has(userId));
    if (missing.length === 0) return;
    if (!acceptLoss) {
      const first = missing.reduce((a, b) => (a.position < b.position ? a : b));
      throw new RefusedToStart(
        `${keysFile} holds no key for ${missing.length} ${missing.length === 1 ? 'person' : 'people'} of ${eventsFile} (the first joined at ` +
          `position ${first.position}): keys.sqlite is older than the events (restored alone from a backup?). Started like this, ` +
          `their names and e-mails would read as blank, and their next change would replace their key for good. Restore the whole ` +
          `data directory from one backup (npm run backup copies keys.sqlite with the events; see Backups in the README), then ` +
          `start again. Only if no backup holds their keys and you accept that this personal data is lost, start once with ACCEPT_LOST_KEYS=1.`,
      );
    }
    const insert = keys.prepare('INSERT INTO user_keys (user_id, key) VALUES (?, ?) ON CONFLICT(user_id) DO NOTHING');
    keys.transaction(() => missing.forEach((person) => insert.run(person.userId, newKey())))();
    new Logger('Integrity').warn(
      `ACCEPT_LOST_KEYS=1: ${missing.length} ${missing.length === 1 ? 'person' : 'people'} of ${eventsFile} had no key in ${keysFile} and were given new ones; ` +
        'their names and e-mails written before now read as blank',
    );
  } finally {
    keys.close();
  }
}

/**
 * The people of the events (each `user-<id>` stream, with the position of its first event) that `keyless` picks and
 * whose stream holds encrypted personal data (one not yet migrated from plaintext gets its key from the migration).
 */
function peopleOf(eventsFile: string, keyless: (userId: string) => boolean): { userId: string; position: number }[] {
  const db = new Database(eventsFile, { readonly: true, fileMustExist: true });
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get()) return [];
    const encrypted = db.prepare<[string, string], number>('SELECT 1 FROM events WHERE stream_id = ? AND data LIKE ? LIMIT 1').pluck();
    // 'user.' is the first string after every 'user-...' ('.' follows '-'): a range of the index.
    return db
      .prepare<[], { stream_id: string; position: number }>(
        "SELECT stream_id, MIN(position) AS position FROM events WHERE stream_id >= 'user-' AND stream_id < 'user.' GROUP BY stream_id",
      )
      .all()
      .filter((row) => keyless(row.stream_id.slice('user-'.length)) && encrypted.get(row.stream_id, `%"${ENCRYPTED_PREFIX}%`) !== undefined)
      .map((row) => ({ userId: row.stream_id.slice('user-'.length), position: row.position }));
  } finally {
    db.close();
  }
}

/** Whether keys.sqlite holds keys (or an accepted loss). */
function holdsKeysOrAcceptedLoss(keysFile: string): boolean {
  const db = new Database(keysFile, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
    if (tables.has('key_loss_accepted')) return true;
    return tables.has('user_keys') && db.prepare('SELECT 1 FROM user_keys LIMIT 1').get() !== undefined;
  } finally {
    db.close();
  }
}

/** The position of the first event holding an encrypted personal field, or null. */
function firstEncryptedEvent(eventsFile: string): number | null {
  const db = new Database(eventsFile, { readonly: true, fileMustExist: true });
  try {
    const hasEvents = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
    if (!hasEvents) return null;
    const row = db.prepare<[string], { position: number }>('SELECT position FROM events WHERE data LIKE ? ORDER BY position LIMIT 1').get(`%"${ENCRYPTED_PREFIX}%`);
    return row?.position ?? null;
  } finally {
    db.close();
  }
}

/** Whether the key file the app opened is still in place (deleted under a running app, it is lost at the next stop). */
export function keyFileProblem(keysFile: string | null): string | null {
  if (keysFile === null || existsSync(keysFile)) return null;
  return (
    'keys.sqlite was removed from the data directory while the app runs: restore it from a backup before the next start ' +
    '(the app refuses to start without it while encrypted personal data exists)'
  );
}

/**
 * Whether `table` of a SQLite file of DATA_DIR has a row matching `where` (false when the file or the table is not
 * there). An existence test, not a count: it runs at every start, on an events table of millions of rows.
 */
function hasRows(file: string, table: string, where = '1'): boolean {
  if (!existsSync(file)) return false;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)) return false;
    return db.prepare(`SELECT 1 FROM ${table} WHERE ${where} LIMIT 1`).get() !== undefined;
  } finally {
    db.close();
  }
}

/** Rows of `table` matching `where` (0 without the file or the table); only where a count is said, never on events. */
function countRows(file: string, table: string, where = '1'): number {
  if (!hasRows(file, table, where)) return 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare<[], number>(`SELECT COUNT(*) FROM ${table} WHERE ${where}`).pluck().get() ?? 0;
  } finally {
    db.close();
  }
}

/**
 * events.sqlite is the source of truth: missing, or holding no events, while the rest of DATA_DIR holds what was made
 * from it (people's keys, built-in accounts), a start began a new, empty history over them: everyone signed in to an
 * empty account, and what they wrote then was split from the history once it came back (a review, 11-27). Refuses.
 */
export function checkEventsPresent(eventsFile: string, keysFile: string | null, accountsFile: string): void {
  if (hasRows(eventsFile, 'events')) return;
  const people = keysFile ? countRows(keysFile, 'user_keys', "user_id NOT LIKE 'install:%'") : 0;
  const accounts = countRows(accountsFile, 'accounts');
  if (people === 0 && accounts === 0) return;
  const held = [people > 0 ? `${keysFile} holds ${people} personal-data ${people === 1 ? 'key' : 'keys'} (of people and their accounts)` : null, accounts > 0 ? `${accountsFile} holds ${accounts} accounts` : null];
  throw new RefusedToStart(
    `${eventsFile} is ${existsSync(eventsFile) ? 'empty' : 'missing'}, but ${held.filter(Boolean).join(' and ')}: started like this, Joy would ` +
      `begin a new, empty history and everyone would sign in to an empty account. Restore events.sqlite from your latest ` +
      `backup of the data directory (npm run backup; see Backups in the README) to ${eventsFile}, then start again. ` +
      `To start a new install instead, give it a new, empty DATA_DIR.`,
  );
}

/**
 * accounts.sqlite holds the built-in sign-in's passwords and passkeys, which no event holds. Missing while the events
 * hold people who signed up through it (their registration names the built-in issuer, `…/oidc`), a start made a new,
 * empty one: none of them could sign in again, and signing up anew gave them new, empty accounts (a review, 11-28).
 * Refuses; an install that signed in only elsewhere until now (OIDC_ISSUER, the development sign-in) starts the
 * built-in sign-in with an empty file, which the message says how to make.
 */
export function checkAccountsPresent(accountsFile: string, eventsFile: string, builtInPath: string): void {
  if (existsSync(accountsFile) || !hasRows(eventsFile, 'events')) return;
  const db = new Database(eventsFile, { readonly: true, fileMustExist: true });
  let people: number;
  try {
    // The user streams' first events (a range of the (stream_id, stream_version) index), by their plaintext issuer.
    people = db
      .prepare<[string], number>(
        "SELECT COUNT(*) FROM events WHERE stream_id >= 'user-' AND stream_id < 'user.' AND stream_version = 1 AND json_extract(data, '$.issuer') LIKE ?",
      )
      .pluck()
      .get(`%${builtInPath}`)!;
  } finally {
    db.close();
  }
  if (people === 0) return;
  throw new RefusedToStart(
    `${accountsFile} is missing, but ${eventsFile} holds ${people} ${people === 1 ? 'person' : 'people'} who signed up with the built-in ` +
      `sign-in: their passwords and passkeys are kept only in accounts.sqlite. Started like this, none of them could sign in again, ` +
      `and signing up anew would give them new, empty accounts. Restore accounts.sqlite from your latest backup of the data ` +
      `directory (npm run backup; see Backups in the README) to ${accountsFile}, then start again. Only if these people signed in ` +
      `through the development sign-in (AUTH_DEV_LOGIN=1) or another provider until now, start the built-in sign-in with an empty ` +
      `file: touch "${accountsFile}".`,
  );
}

/**
 * The highest position events.sqlite ever gave (AUTOINCREMENT's record of it): an event quarantined since, at the end,
 * still counts as read by the read models, while a file restored from a backup, or without its -wal, has gone back.
 */
export function lastPositionOf(eventsFile: string): number {
  if (!existsSync(eventsFile)) return 0;
  const db = new Database(eventsFile, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
    // MAX of the primary key is one index lookup (no scan of the events at every start).
    const last = tables.has('events') ? (db.prepare<[], number | null>('SELECT MAX(position) FROM events').pluck().get() ?? 0) : 0;
    const ever = tables.has('sqlite_sequence') ? (db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'events'").pluck().get() ?? 0) : 0;
    return Math.max(ever, last);
  } finally {
    db.close();
  }
}

/**
 * Read models (and the relay) never run ahead of the events they were made from: a checkpoint past the last event means
 * events.sqlite went back in time (restored alone from a backup, or its -wal removed after a crash). Served as they
 * were, they showed ratings no event holds, and every new write answered 201 and never appeared: the relay took it for
 * done (a review, 11-27). Refuses, naming both files. `checkpoints` are the names read (the relay's, each projection's).
 */
export async function checkReadModelsNotAhead(
  head: number,
  readCheckpoint: (name: string) => Promise<number>,
  checkpoints: readonly string[],
  files: { events: string; readModels: string },
): Promise<void> {
  for (const name of checkpoints) {
    const at = await readCheckpoint(name);
    if (at <= head) continue;
    throw new RefusedToStart(
      `${files.readModels} has read up to position ${at} (${name}), but ${files.events} ends at position ${head}: the events are ` +
        `older than the rest of the data directory (restored alone from a backup, or its -wal file removed). Restore the whole ` +
        `data directory from one backup (npm run backup; see Backups in the README). Only if these events are what you want to ` +
        `keep, move the read models aside (mv "${files.readModels}" "${files.readModels}.ahead") and start again: they are ` +
        `rebuilt from the events.`,
    );
  }
}
