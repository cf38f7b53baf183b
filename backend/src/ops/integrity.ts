import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { ENCRYPTED_PREFIX } from '../identity/personal-data';

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
 * keys.sqlite must exist when events.sqlite holds personal data encrypted with its keys: without it the app
 * would create new keys and every name and e-mail would silently read as blank, for good. Refuses to start
 * unless `acceptLoss` (ACCEPT_LOST_KEYS=1), which is recorded in the new keys.sqlite so that later starts agree.
 */
export function checkKeyFile(keysFile: string, eventsFile: string, acceptLoss: boolean): void {
  if (!existsSync(eventsFile)) return;
  const keysPresent = existsSync(keysFile) && holdsKeysOrAcceptedLoss(keysFile, eventsFile);
  if (keysPresent) return;
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

/** Whether keys.sqlite holds keys (or an accepted loss); one SQLite cannot read is refused by name, unchanged. */
function holdsKeysOrAcceptedLoss(keysFile: string, eventsFile: string): boolean {
  const db = new Database(keysFile, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
    if (tables.has('key_loss_accepted')) return true;
    return tables.has('user_keys') && db.prepare('SELECT 1 FROM user_keys LIMIT 1').get() !== undefined;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw err;
    throw new RefusedToStart(
      `${keysFile} is damaged (${code}: ${(err as Error).message}): it holds the keys of the personal data in ${eventsFile}, ` +
        `which cannot be made again. Restore keys.sqlite from your latest backup of the data directory (npm run backup ` +
        `writes it as <backup>/keys.sqlite) to ${keysFile}, then start again. Only if no backup exists and you accept ` +
        `that this personal data is lost, move it aside (mv "${keysFile}" "${keysFile}.damaged") and start once with ACCEPT_LOST_KEYS=1.`,
    );
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
