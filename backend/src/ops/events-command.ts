import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EventStoreDbEventStore } from '../event-store/eventstoredb-event-store';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import { openOrExplain, Stopped, type CliIo, type EventSource } from './cli-io';
import { createEventStore } from '../infrastructure';
import { keysNote } from './keys-command';
import { exportEvents, ExportFileError, importEvents, truncatedAway } from './events-transfer';
import { abandonExclusive, createExclusive, finishExclusive, type ExclusiveFile } from './exclusive-file';
import { progressBar } from './progress';
import { PROJECTIONS } from '../projections/projections';
import { quarantineEvent, verifyEvents } from './event-repair';
import { rebuildAtNextStart } from './rebuild-at-start';
import { type DataDirLock, lockForCommand } from './data-dir-lock';

const PAGE = 500;
const FOLLOW_POLL_MS = 250;

const USAGE = `usage: npm run events -- <command>
  tail --from <position> [--type T]... [--follow] [--checkpoint FILE]
                     prints the events after <position> in global order, one JSON object a line:
                     {position, streamId, streamVersion, type, data, metadata}
    --type T           only events of type T (repeat or comma-separate for several)
    --follow           keep printing new events as they are appended (until Ctrl-C)
    --checkpoint FILE  resume after the last position printed (FILE is written after each line)
  export [--to FILE]   every event in global order as NDJSON (to stdout without --to), up to the head at the
                       start: {streamId, streamVersion, eventId, type, data, metadata, position}
  import FILE [--resume]
                       appends an export's events to the configured store, which must be empty; --resume
                       continues an interrupted import of the same file after the store's last event
  verify             reads every event of DATA_DIR/events.sqlite (read-only, safe beside the app) and lists
                     those that cannot be read, with their positions; exit code 1 when any is damaged
  quarantine <position>
                     moves the damaged event at <position> into the file's quarantined_events table, after a
                     backup of the file next to it (events.sqlite.before-quarantine-...); stop the app first
  Reads (and import writes) EventStoreDB when EVENTSTORE_URL is set, else events.sqlite in DATA_DIR.`;

interface TailOptions {
  from: number;
  types: Set<string> | null;
  follow: boolean;
  checkpoint: string | null;
}

function parseTail(args: string[]): TailOptions | string {
  const options: TailOptions = { from: 0, types: null, follow: false, checkpoint: null };
  let sawFrom = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    try {
      if (arg === '--from') {
        const from = Number(value());
        if (!Number.isSafeInteger(from) || from < 0) return `--from must be a position (an integer >= 0)`;
        options.from = from;
        sawFrom = true;
      } else if (arg === '--type') {
        options.types ??= new Set();
        for (const t of value().split(',')) if (t) options.types.add(t);
      } else if (arg === '--follow') options.follow = true;
      else if (arg === '--checkpoint') options.checkpoint = resolve(value());
      else return `unknown option ${arg}`;
    } catch (err) {
      return (err as Error).message;
    }
  }
  if (!sawFrom && !options.checkpoint) return '--from <position> is required (0 = from the first event)';
  return options;
}

/** The last position a previous run printed, or null when there is no checkpoint file yet. */
function readCheckpoint(file: string): number | null {
  if (!existsSync(file)) return null;
  const position = Number(JSON.parse(readFileSync(file, 'utf8')).position);
  if (!Number.isSafeInteger(position) || position < 0) throw new Error(`${file} does not hold a position`);
  return position;
}

/** Atomic: a crash leaves the old or the new file, never half of one (write aside, then rename over). */
function writeCheckpoint(file: string, position: number): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ position })}\n`);
  renameSync(tmp, file);
}

/**
 * The SQLite event file opened read-only: safe beside the running app (WAL mode: readers never block its
 * writer, and this process can never write). Same query as the adapter's readAll.
 */
class ReadOnlySqliteEvents implements EventSource {
  private readonly db: Database.Database;
  private readonly stmt: Database.Statement<[number, number], { position: number; stream_id: string; stream_version: number; type: string; data: string; metadata: string }>;
  private readonly head: Database.Statement<[], number>;

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    this.stmt = this.db.prepare(
      'SELECT position, stream_id, stream_version, type, data, metadata FROM events WHERE position > ? ORDER BY position LIMIT ?',
    );
    this.head = this.db.prepare<[], number>('SELECT COALESCE(MAX(position), 0) FROM events').pluck();
  }

  async headPosition(): Promise<number> {
    return this.head.get() ?? 0;
  }

  async readAll({ from, limit }: { from: number; limit: number }): Promise<RecordedEvent[]> {
    return this.stmt.all(from, limit).map((row) => ({
      position: row.position,
      streamId: row.stream_id,
      streamVersion: row.stream_version,
      type: row.type,
      data: JSON.parse(row.data) as RecordedEvent['data'],
      metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
    }));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** The configured event store, read-only: EventStoreDB when EVENTSTORE_URL is set, else DATA_DIR's SQLite file. */
export function openEventSource(env: NodeJS.ProcessEnv): EventSource {
  if (env.EVENTSTORE_URL) return new EventStoreDbEventStore(env.EVENTSTORE_URL);
  const file = join(resolve(env.DATA_DIR ?? './data'), 'events.sqlite');
  if (!existsSync(file)) throw new Error(`No event store at ${file} (set DATA_DIR, or EVENTSTORE_URL for EventStoreDB)`);
  return new ReadOnlySqliteEvents(file);
}

function sqliteFile(env: NodeJS.ProcessEnv): string {
  return join(resolve(env.DATA_DIR ?? './data'), 'events.sqlite');
}

async function verify(io: CliIo): Promise<number> {
  if (io.env.EVENTSTORE_URL) {
    io.err('verify reads the embedded SQLite event store; EventStoreDB checks its own log (see its documentation)\n');
    return 2;
  }
  const file = sqliteFile(io.env);
  let result: ReturnType<typeof verifyEvents>;
  try {
    result = verifyEvents(file);
  } catch (err) {
    io.err(`${(err as Error).message}\n`);
    return 1;
  }
  for (const problem of result.fileProblems) io.err(`${file}: ${problem}\n`);
  for (const d of result.damaged) await io.out(`position ${d.position}: ${d.reason}\n`);
  if (result.damaged.length === 0 && result.fileProblems.length === 0) {
    await io.out(`${file}: all ${result.checked} events read fine\n`);
    return 0;
  }
  const first = result.damaged[0];
  io.err(
    `${file}: ${result.damaged.length} damaged event(s) among ${result.checked} read` +
      (result.fileProblems.length ? `, and the file itself is damaged (restore it from a backup)` : '') +
      (first ? `. Stop the app, then: npm run events -- quarantine ${first.position}` : '') +
      '\n',
  );
  return 1;
}

async function quarantine(args: string[], io: CliIo): Promise<number> {
  const position = Number(args[0]);
  if (args.length !== 1 || !Number.isSafeInteger(position) || position < 1) {
    io.err(`quarantine needs one position (an integer >= 1)\n${USAGE}\n`);
    return 2;
  }
  if (io.env.EVENTSTORE_URL) {
    io.err('quarantine works on the embedded SQLite event store only\n');
    return 2;
  }
  const file = sqliteFile(io.env);
  let lock: DataDirLock | null = null;
  try {
    lock = lockForCommand(io.env, 'npm run events -- quarantine');
    const { backup, reason } = await quarantineEvent(file, position);
    await io.out(`Moved the event at position ${position} (${reason}) into quarantined_events.\nBackup of the file before: ${backup}\n`);
    // The read models may hold what the event said: the next start builds them again from the events that remain.
    if (await rebuildAtNextStart(io.env.DATA_DIR, PROJECTIONS.map((p) => p.name))) {
      await io.out('The read models are rebuilt from the remaining events at the next start of the app.\n');
    }
    return 0;
  } catch (err) {
    io.err(`${(err as Error).message}\n`);
    return 1;
  } finally {
    lock?.release();
  }
}

/** The subcommands of `npm run events`. */
const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  tail: runTail,
  export: runExport,
  import: runImport,
  verify: (_args, io) => verify(io),
  quarantine,
};

/** `events <command> ...`; resolves to the exit code. */
export async function runEvents(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  const run = command === undefined ? undefined : Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) {
    const asked = command === undefined || command === '--help' || command === 'help';
    io.err(`${asked ? '' : `unknown command ${command}\n`}${USAGE}\n`);
    return asked ? 0 : 2;
  }
  return run(args, io);
}

async function runTail(args: string[], io: CliIo): Promise<number> {
  const options = parseTail(args);
  if (typeof options === 'string') {
    io.err(`${options}\n${USAGE}\n`);
    return 2;
  }
  let position = options.from;
  if (options.checkpoint) position = readCheckpoint(options.checkpoint) ?? position;
  const source = openOrExplain(io, () => openEventSource(io.env));
  if (!source) return 1;
  try {
    for (;;) {
      if (io.signal?.aborted) return 0;
      const page = await source.readAll({ from: position, limit: PAGE });
      for (const event of page) {
        // The scan position moves past every event; the checkpoint records the last one printed.
        position = event.position;
        if (options.types && !options.types.has(event.type)) continue;
        const { position: p, streamId, streamVersion, type, data, metadata } = event;
        await io.out(`${JSON.stringify({ position: p, streamId, streamVersion, type, data, metadata })}\n`);
        if (options.checkpoint) writeCheckpoint(options.checkpoint, p);
      }
      if (page.length === PAGE) continue;
      if (!options.follow) return 0;
      await new Promise<void>((done) => {
        const timer = setTimeout(done, FOLLOW_POLL_MS);
        io.signal?.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
      });
    }
  } finally {
    await source.close();
  }
}

/** `events export [--to FILE]`: to stdout, or to FILE (mode 0600, written aside and renamed when complete). */
async function runExport(args: string[], io: CliIo): Promise<number> {
  let to: string | null = null;
  if (args.length === 2 && args[0] === '--to') to = resolve(args[1]);
  else if (args.length > 0) return usageError(io, `export takes only --to FILE, got ${args.join(' ')}`);
  const source = openOrExplain(io, () => openEventSource(io.env));
  if (!source) return 1;
  const progress = progressBar(io, 'export |{bar}| {percentage}% | position {value}/{total} | {count} events');
  let file: ExclusiveFile | null = null;
  try {
    file = to ? createExclusive(to) : null;
    const hidden = source instanceof EventStoreDbEventStore ? truncatedAway(source) : undefined;
    const result = await exportEvents(source, file ? file.write : io.out, { progress, hidden, signal: io.signal });
    if (file) await finishExclusive(file);
    const left = result.hidden ? ` (left out: ${result.hidden} events truncated away from their streams, awaiting a scavenge)` : '';
    io.err(`Exported ${result.count} events (up to position ${result.head})${to ? ` to ${to}` : ''}${left}.\n${keysNote(io.env)}\n`);
    return 0;
  } catch (err) {
    if (file) abandonExclusive(file);
    if (err instanceof Stopped) {
      io.err(`Stopped: no export was written${to ? ` (${to} does not exist)` : ''}.\n`);
      return 130;
    }
    const hint = io.env.EVENTSTORE_URL ? '' : ' (when an event cannot be read, npm run events -- verify names it)';
    io.err(`Export failed${hint}: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await source.close();
  }
}

/** `events import FILE [--resume]` into the configured store; the read models are then built by the usual rebuild. */
async function runImport(args: string[], io: CliIo): Promise<number> {
  const resume = args.includes('--resume');
  const rest = args.filter((a) => a !== '--resume');
  if (rest.length !== 1 || rest[0].startsWith('--')) return usageError(io, 'import needs one FILE (an `events export`), and optionally --resume');
  const file = resolve(rest[0]);
  if (!existsSync(file)) {
    io.err(`No file ${file}\n`);
    return 1;
  }
  let lock: DataDirLock | null;
  try {
    lock = lockForCommand(io.env, 'npm run events -- import');
  } catch (err) {
    io.err(`${(err as Error).message}\n`);
    return 1;
  }
  const target = openEventTarget(io.env);
  const where = io.env.EVENTSTORE_URL ? 'EventStoreDB' : `events.sqlite in ${resolve(io.env.DATA_DIR ?? './data')}`;
  const progress = progressBar(io, 'import |{bar}| {percentage}% | {value}/{total} events | {imported} written');
  try {
    io.err(`Checking ${file}, then importing into ${where}\n`);
    const result = await importEvents(target, file, { resume, progress, signal: io.signal });
    io.err(
      `Imported ${result.imported} events${result.skipped ? ` (${result.skipped} were already there)` : ''} into ${where}.\n` +
        'The read models are built from these events by the usual rebuild: on the embedded default at the next start;\n' +
        'with MONGO_URL, by the worker from position 0 on an empty MongoDB (or `npm run projections -- rebuild <name>`).\n' +
        `${keysNote(io.env)}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof Stopped) {
      io.err(`Stopped between two batches: the events written so far are a whole beginning of the file.\nRun the same import again with --resume to go on.\n`);
      return 130;
    }
    // A damaged line is found before anything is written; a refusal (ImportRefused) says itself what to do.
    io.err(err instanceof ExportFileError ? `${file} ${err.message}: nothing was imported.\n` : `${(err as Error).message}\n`);
    return 1;
  } finally {
    await target.close();
    lock?.release();
  }
}

/** The configured event store, to write to: EventStoreDB when EVENTSTORE_URL is set, else DATA_DIR's SQLite file. */
function openEventTarget(env: NodeJS.ProcessEnv): EventStore {
  const dataDir = resolve(env.DATA_DIR ?? './data');
  if (!env.EVENTSTORE_URL) mkdirSync(dataDir, { recursive: true });
  return createEventStore({ eventStoreUrl: env.EVENTSTORE_URL || null, dataDir });
}

function usageError(io: CliIo, message: string): number {
  io.err(`${message}\n${USAGE}\n`);
  return 2;
}
