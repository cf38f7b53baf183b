import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containerRuntimeMayExist, sharedMongoDatabase } from '../testing/containers';
import { describeKeyStoreConformance } from './key-store.conformance';
import { SqliteKeyStore } from './key-stores';
import { MongoKeyStore } from './mongo-key-store';

// Starting a MongoDB container (and pulling its image the first time) takes a while; the SQLite cases are instant.
jest.setTimeout(180_000);

const tempDirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'joy-keys-'));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describeKeyStoreConformance('SQLite', async () => {
  const dir = tempDir();
  const file = join(dir, 'keys.sqlite');
  return { open: () => new SqliteKeyStore(file), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

/** A database of its own for this run, dropped at the end; one server (and admin client) for the whole file. */
const { dbName, get: getShared } = sharedMongoDatabase('joy_keys');

let mongoCase = 0;
describeKeyStoreConformance(
  'MongoDB',
  process.env.MONGO_URL || containerRuntimeMayExist()
    ? async () => {
        const started = await getShared();
        if (!started) return null;
        // A collection per case; every instance has a client of its own, as replicas do.
        const collection = `user-keys-${++mongoCase}`;
        return {
          open: () => new MongoKeyStore(started.server.url, { dbName, collection }),
          cleanup: async () => {
            await started.client.db(dbName).collection(collection).drop().catch(() => undefined);
          },
        };
      }
    : null,
  'no MongoDB to test MongoKeyStore against: set MONGO_URL (e.g. mongodb://localhost:27017) or make a ' +
    'container runtime (Docker) reachable, so that testcontainers starts mongo:7',
);

describe('SqliteKeyStore: a destroyed key is gone from the bytes of keys.sqlite (secure_delete, no WAL)', () => {
  let dir: string;
  let file: string;
  let stores: SqliteKeyStore[];
  beforeEach(() => {
    dir = tempDir();
    file = join(dir, 'keys.sqlite');
    stores = [];
  });
  afterEach(async () => {
    for (const store of stores) await store.close();
  });
  const open = () => {
    const store = new SqliteKeyStore(file);
    stores.push(store);
    return store;
  };

  /** Every byte SQLite keeps on disk for the store: the database file and its journals, when they exist. */
  const onDisk = (): Buffer =>
    Buffer.concat(
      [file, `${file}-journal`, `${file}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path)),
    );

  it('a destroyed key has no copy left in the file or a journal, with the store open and after closing it', async () => {
    const store = open();
    const key = (await store.keyFor('ada'))!;
    const bob = (await store.keyFor('bob'))!;
    // The search does find a live key.
    expect(onDisk().indexOf(key)).toBeGreaterThanOrEqual(0);

    await store.destroy('ada');
    expect(existsSync(`${file}-wal`)).toBe(false); // a rollback journal, not a log that keeps old pages
    expect(onDisk().indexOf(key)).toBe(-1);
    expect(onDisk().indexOf(bob)).toBeGreaterThanOrEqual(0);
    await store.close();
    expect(existsSync(`${file}-journal`)).toBe(false);
    expect(onDisk().indexOf(key)).toBe(-1);
  });

  it('no stale copy survives in free space either, with many people (page splits copy cells around)', async () => {
    // Without secure_delete, B-tree page splits leave old copies of cells in free space, which destroying the
    // live row does not touch: with a few hundred random ids some destroyed keys were still in the file.
    const store = open();
    const people = Array.from({ length: 200 }, () => randomUUID());
    const keys = new Map<string, Buffer>();
    for (const id of people) keys.set(id, (await store.keyFor(id))!);
    const destroyed = people.filter((_, i) => i % 2 === 0);
    const kept = people.filter((_, i) => i % 2 === 1);
    for (const id of destroyed) await store.destroy(id);

    const leftOpen = onDisk();
    expect(destroyed.filter((id) => leftOpen.indexOf(keys.get(id)!) !== -1)).toEqual([]);
    await store.close();
    const leftClosed = onDisk();
    expect(destroyed.filter((id) => leftClosed.indexOf(keys.get(id)!) !== -1)).toEqual([]);
    // The others' keys are still there, and still theirs.
    expect(kept.filter((id) => leftClosed.indexOf(keys.get(id)!) === -1)).toEqual([]);
    const again = open();
    for (const id of kept) expect(await again.existingKey(id)).toEqual(keys.get(id));
  });
});
