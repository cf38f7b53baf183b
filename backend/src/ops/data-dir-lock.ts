import Database from 'better-sqlite3';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cannotUse, RefusedToStart } from './integrity';

/** The embedded install's lock, held while a process runs on DATA_DIR; released by `release` or by the process ending. */
export interface DataDirLock {
  release(): void;
}

const LOCK_FILE = 'joy.lock';
/** Who holds the lock, for the refusal's message (best effort: the lock itself is SQLite's, not this file). */
const HOLDER_FILE = 'joy.lock.holder';
/** The lock's files: a running process's, never part of a backup. */
export const LOCK_FILES: readonly string[] = [LOCK_FILE, HOLDER_FILE];

/**
 * Takes DATA_DIR for this process alone. The embedded read models, the in-process queue and the reminders are one
 * process's: a second app on the same files answered 200 on its own port, showed its own writes and not the other's,
 * and both sent every reminder (a review, 11-28). `doing` names what holds it ("the app on port 3000").
 *
 * The lock is SQLite's on `joy.lock` (exclusive locking mode: the write lock is kept until the connection closes),
 * so the operating system releases it when the process ends, however it ends: no stale lock to clear by hand.
 */
export function lockDataDir(dataDir: string, doing: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  const holderFile = join(dataDir, HOLDER_FILE);
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: 0 });
  } catch (err) {
    throw cannotUse(file, err) ?? err;
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = MEMORY'); // nothing to roll back here: no -journal file beside it
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (since TEXT); COMMIT');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw cannotUse(file, err) ?? err;
    const holder = readHolder(holderFile);
    throw new RefusedToStart(
      `${dataDir} is in use by another Joy process${holder ? ` (${holder})` : ''}. One process at a time runs on a data ` +
        `directory: stop that one first, or give this one another DATA_DIR. (The lock is ${file}; it is released when ` +
        `that process ends, however it ends.)`,
    );
  }
  try {
    writeFileSync(holderFile, `process ${process.pid}, ${doing}, since ${new Date().toISOString()}`, { mode: 0o600 });
  } catch {
    // Only the refusal's words; a DATA_DIR this user cannot write is named by the files opened next.
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      rmSync(holderFile, { force: true });
      db.close();
    },
  };
}

function readHolder(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * For a command that must not write DATA_DIR's events under a running app (quarantine, import): the same lock,
 * taken where the app takes it (embedded read models), null otherwise.
 */
export function lockForCommand(env: NodeJS.ProcessEnv, doing: string): DataDirLock | null {
  if (env.MONGO_URL || env.EVENTSTORE_URL) return null;
  const dataDir = resolve(env.DATA_DIR ?? './data');
  return existsSync(dataDir) ? lockDataDir(dataDir, doing) : null;
}
