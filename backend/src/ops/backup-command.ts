import Database from 'better-sqlite3';
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { LOCK_FILES } from './data-dir-lock';
import { Stopped, stopIfAsked, type CliIo } from './cli-io';
import { table } from './projections-command';

const USAGE = `usage: npm run backup -- --to DIR
  A consistent copy of the embedded install in DATA_DIR, taken while the app runs: every SQLite database
  (events, keys, sessions, care orders, ...) through SQLite's online backup API, every other file (the session
  secret, ...) as it is. DIR must not exist or be empty; the copy is written beside it and renamed to DIR once
  complete, so DIR never holds half a backup. Restore: stop the app, then DATA_DIR=DIR npm start.`;

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** Files SQLite keeps beside a database while it is open: their content is in the online copy. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];
/** Pages per backup step: all of them, so the copy is one read transaction (one point in time) of the source. */
const ALL_PAGES = 0x7fffffff;

/**
 * The order of the copies. The read models first, then the events, and keys last:
 * - the read models never run ahead of the events they were made from: copied before them, they hold only what
 *   the events' copy holds, and the start catches up the rest (copied after, they were ahead, and the copy was
 *   refused at start: the check for an events.sqlite older than its read models);
 * - a person whose event is in the copy had their key created before that event was written, so the later copy of
 *   the keys holds it (a key created after the events' copy only belongs to events that are not in it).
 */
function rank(name: string): number {
  if (name === 'read-models.sqlite') return -1;
  if (name === 'events.sqlite') return 0;
  if (name === 'keys.sqlite') return 2;
  return 1;
}

interface Copied {
  file: string;
  bytes: number;
  how: string;
}

function isSqliteFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}

/** Every regular file under `dir` (relative paths), without SQLite's side files of the databases. */
function filesOf(dir: string, under = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(dir, under), { withFileTypes: true })) {
    const path = join(under, entry.name);
    if (entry.isDirectory()) files.push(...filesOf(dir, path));
    else if (entry.isFile()) files.push(path);
  }
  const all = new Set(files);
  return files.filter((f) => !LOCK_FILES.includes(f)).filter((f) => !SIDE_FILES.some((suffix) => f.endsWith(suffix) && all.has(f.slice(0, -suffix.length))));
}

/** Copies a live database through the online backup API, then checks the copy opens and is whole. */
async function backupDatabase(source: string, target: string): Promise<string> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    await db.backup(target, { progress: () => ALL_PAGES });
  } finally {
    db.close();
  }
  const copy = new Database(target, { fileMustExist: true });
  try {
    // One self-contained file (no -wal/-shm beside it) that can be moved anywhere; the app turns WAL back on.
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`The copy of ${source} fails SQLite's quick_check: ${String(check)}`);
    const hasEvents = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
    if (!hasEvents) return 'online backup, checked';
    const { n, head } = copy.prepare('SELECT COUNT(*) AS n, COALESCE(MAX(position), 0) AS head FROM events').get() as { n: number; head: number };
    return `online backup, checked: ${n} events up to position ${head}`;
  } finally {
    copy.close();
  }
}

/** Copies every file of `dataDir` into `target` (a new directory), databases first to last as `rank` says. */
async function copyInstall(dataDir: string, target: string, signal: AbortSignal | undefined): Promise<Copied[]> {
  const files = filesOf(dataDir).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const copied: Copied[] = [];
  for (const file of files) {
    stopIfAsked(signal);
    const source = join(dataDir, file);
    const dest = join(target, file);
    mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
    const { mode } = statSync(source);
    let how: string;
    if (isSqliteFile(source)) how = await backupDatabase(source, dest);
    else {
      copyFileSync(source, dest);
      how = 'copied';
    }
    chmodSync(dest, mode & 0o777);
    copied.push({ file, bytes: statSync(dest).size, how });
  }
  return copied;
}

/** `backup --to DIR`; resolves to the exit code. */
export async function runBackup(argv: string[], io: CliIo): Promise<number> {
  if (argv.length !== 2 || argv[0] !== '--to') {
    const asked = argv.length === 0 || argv[0] === 'help' || argv[0] === '--help';
    io.err(`${asked ? '' : `unknown arguments ${argv.join(' ')}\n`}${USAGE}\n`);
    return asked ? 0 : 2;
  }
  const dataDir = resolve(io.env.DATA_DIR ?? './data');
  const to = resolve(argv[1]);
  if (!existsSync(dataDir)) {
    io.err(`No install at ${dataDir}: set DATA_DIR to the app's data directory.\n`);
    return 1;
  }
  if (!io.env.EVENTSTORE_URL && !existsSync(join(dataDir, 'events.sqlite'))) {
    io.err(`${dataDir} holds no events.sqlite: is DATA_DIR the app's data directory?\n`);
    return 1;
  }
  if (to === dataDir || to.startsWith(dataDir + sep)) {
    io.err(`The backup cannot go inside DATA_DIR (${dataDir}): choose a directory outside it.\n`);
    return 2;
  }
  if (existsSync(to) && readdirSync(to).length > 0) {
    io.err(`${to} is not empty: a backup goes into a new (or empty) directory.\n`);
    return 1;
  }
  if (io.env.EVENTSTORE_URL || io.env.MONGO_URL || io.env.REDIS_URL) {
    io.err(
      'Only DATA_DIR is copied: the events in EventStoreDB, the read models and keys in MongoDB and the sessions in Redis\n' +
        'are backed up with those servers\' own tools (see the README, "Backups").\n',
    );
  }
  const staging = `${to}.partial-${process.pid}`;
  try {
    mkdirSync(dirname(to), { recursive: true });
    mkdirSync(staging, { mode: 0o700 });
    const copied = await copyInstall(dataDir, staging, io.signal);
    if (existsSync(to)) rmdirSync(to);
    renameSync(staging, to);
    io.out(`Backup of ${dataDir} in ${to}:\n\n`);
    io.out(table([['file', 'bytes', 'how'], ...copied.map((c) => [c.file, c.bytes, c.how])]));
    io.out(`\nRestore: stop the app, then start it on the copy (DATA_DIR=${to} npm start), or copy it in place of DATA_DIR.\n`);
    return 0;
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (err instanceof Stopped) {
      io.err(`Stopped: no backup was written to ${to}.\n`);
      return 130;
    }
    io.err(`Backup failed, nothing was written to ${to}: ${(err as Error).message}\n`);
    return 1;
  }
}
