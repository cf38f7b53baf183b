import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { KeyArchive, KeyRecord, KeyStore } from '../identity/key-store';
import { createKeyStore } from '../infrastructure';
import { openOrExplain, Stopped, stopIfAsked, type CliIo } from './cli-io';
import { abandonExclusive, createExclusive, finishExclusive, type ExclusiveFile } from './exclusive-file';

const USAGE = `usage: npm run keys -- export --to FILE | import FILE
  export --to FILE  writes every person's key, and the tombstone of every deleted account, as NDJSON
                    ({userId, key (base64) | null, destroyedAt}) to FILE, readable by its owner only (0600)
  import FILE       adds them to the configured key store; a person who already has a different key there (or
                    a tombstone) stops the import before anything is written
  The key store is the MongoDB collection user-keys when MONGO_URL is set, else keys.sqlite in DATA_DIR.`;

const WARNING =
  'WARNING: this file holds the keys that decrypt every person\'s personal data (names, e-mail addresses) in the\n' +
  'events. Keep it as safe as the data itself, move it only over a secure channel, and delete it once imported.\n';

/** Where the configured key store is, in words. */
function keyStoreName(env: NodeJS.ProcessEnv): string {
  return env.MONGO_URL ? 'the MongoDB collection user-keys (MONGO_URL)' : `${join(resolve(env.DATA_DIR ?? './data'), 'keys.sqlite')}`;
}

/** Said after an event export or import: the events are unreadable without their keys. */
export function keysNote(env: NodeJS.ProcessEnv): string {
  return (
    `Personal data in the events is encrypted with per-person keys kept apart from them, in ${keyStoreName(env)}.\n` +
    'Move them too, before the app starts on the new store: npm run keys -- export --to FILE, then npm run keys -- import FILE.'
  );
}

function openKeyStore(env: NodeJS.ProcessEnv, mustExist: boolean): KeyStore & KeyArchive {
  const dataDir = resolve(env.DATA_DIR ?? './data');
  if (!env.MONGO_URL) {
    const file = join(dataDir, 'keys.sqlite');
    if (mustExist && !existsSync(file)) throw new Error(`No key store at ${file} (set DATA_DIR, or MONGO_URL for MongoDB)`);
    mkdirSync(dataDir, { recursive: true });
  }
  return createKeyStore({ mongoUrl: env.MONGO_URL || null, dataDir });
}

export function keyLine(record: KeyRecord): string {
  return JSON.stringify({
    userId: record.userId,
    key: record.key ? record.key.toString('base64') : null,
    destroyedAt: record.destroyedAt ? record.destroyedAt.toISOString() : null,
  });
}

/** One line of a keys file, or an error naming the line and the field. */
export function parseKeyLine(line: string, number: number): KeyRecord {
  const fail = (what: string) => new Error(`line ${number}: ${what}`);
  let value: { userId?: unknown; key?: unknown; destroyedAt?: unknown };
  try {
    value = JSON.parse(line);
  } catch {
    throw fail('not JSON');
  }
  if (value === null || typeof value !== 'object') throw fail('not a JSON object');
  const { userId, key, destroyedAt } = value;
  if (typeof userId !== 'string' || userId === '') throw fail('userId must be a non-empty string');
  if (key === null) {
    const at = typeof destroyedAt === 'string' ? new Date(destroyedAt) : null;
    if (!at || Number.isNaN(at.getTime())) throw fail('a tombstone (key null) needs destroyedAt, an ISO date');
    return { userId, key: null, destroyedAt: at };
  }
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : null;
  if (!bytes || bytes.length !== 32 || bytes.toString('base64') !== key) throw fail('key must be 32 bytes in base64, or null');
  return { userId, key: bytes, destroyedAt: null };
}

async function* keyRecords(file: string): AsyncGenerator<KeyRecord> {
  let number = 0;
  for await (const line of createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    number += 1;
    if (line.trim() !== '') yield parseKeyLine(line, number);
  }
}

/** `keys export --to FILE | import FILE`; resolves to the exit code. */
export async function runKeys(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'export' && args.length === 2 && args[0] === '--to') return exportKeys(resolve(args[1]), io);
  if (command === 'import' && args.length === 1 && !args[0].startsWith('--')) return importKeys(resolve(args[0]), io);
  const asked = command === undefined || command === 'help' || command === '--help';
  io.err(`${asked ? '' : `unknown command ${argv.join(' ')}\n`}${USAGE}\n`);
  return asked ? 0 : 2;
}

async function exportKeys(to: string, io: CliIo): Promise<number> {
  const keys = openOrExplain(io, () => openKeyStore(io.env, true));
  if (!keys) return 1;
  let file: ExclusiveFile | null = null;
  try {
    file = createExclusive(to);
    let live = 0;
    let destroyed = 0;
    for await (const record of keys.records()) {
      stopIfAsked(io.signal);
      if (record.key) live += 1;
      else destroyed += 1;
      await file.write(`${keyLine(record)}\n`);
    }
    await finishExclusive(file);
    io.err(`Exported ${live} keys and ${destroyed} tombstones of deleted accounts from ${keyStoreName(io.env)} to ${to} (mode 0600).\n${WARNING}`);
    return 0;
  } catch (err) {
    if (file) abandonExclusive(file);
    io.err(err instanceof Stopped ? `Stopped: no keys file was written (${to} does not exist).\n` : `${(err as Error).message}\n`);
    return err instanceof Stopped ? 130 : 1;
  } finally {
    await keys.close();
  }
}

async function importKeys(from: string, io: CliIo): Promise<number> {
  if (!existsSync(from)) {
    io.err(`No file ${from}\n`);
    return 1;
  }
  if ((statSync(from).mode & 0o077) !== 0) {
    io.err(`Note: ${from} can be read by other users of this machine; it holds the keys to everyone's personal data (chmod 600).\n`);
  }
  const keys = openKeyStore(io.env, false);
  try {
    // First pass: the whole file is valid and agrees with what the store already holds; nothing is written yet.
    const conflicts = { count: 0, first: [] as string[] };
    let already = 0;
    try {
      for await (const record of keyRecords(from)) {
        stopIfAsked(io.signal);
        const stored = await keys.stored(record.userId);
        if (stored === undefined) continue;
        if (stored === null ? record.key === null : record.key !== null && stored.equals(record.key)) already += 1;
        else if (++conflicts.count <= 5) conflicts.first.push(record.userId);
      }
    } catch (err) {
      io.err(err instanceof Stopped ? 'Stopped: nothing was imported.\n' : `${from} ${(err as Error).message}: nothing was imported.\n`);
      return err instanceof Stopped ? 130 : 1;
    }
    if (conflicts.count > 0) {
      io.err(
        `${keyStoreName(io.env)} already holds a different key (or a tombstone) for ${conflicts.count} of these people ` +
          `(${conflicts.first.join(', ')}${conflicts.count > 5 ? ', …' : ''}): nothing was imported.\n` +
          'Import keys before the app runs on the new store (it creates a key at a person\'s first sign-in).\n',
      );
      return 1;
    }
    let written = 0;
    for await (const record of keyRecords(from)) {
      stopIfAsked(io.signal);
      if ((await keys.stored(record.userId)) !== undefined) continue;
      await keys.restore(record);
      written += 1;
    }
    io.err(
      `Imported ${written} keys and tombstones into ${keyStoreName(io.env)}${already ? ` (${already} were already there)` : ''}.\n` +
        `${from} holds the means to read personal data: delete it now that it is imported.\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof Stopped) {
      io.err('Stopped: some keys are imported; run the same import again to finish (the keys already there are recognised).\n');
      return 130;
    }
    io.err(`${(err as Error).message}\n`);
    return 1;
  } finally {
    await keys.close();
  }
}
