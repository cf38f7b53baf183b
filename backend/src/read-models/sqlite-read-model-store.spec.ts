import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeReadModelStoreConformance } from './read-model-store.conformance';
import { SqliteReadModelStore } from './sqlite-read-model-store';

const dirs: string[] = [];
const newFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'joy-read-models-'));
  dirs.push(dir);
  return join(dir, 'read-models.sqlite');
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeReadModelStoreConformance('SQLite', async () => {
  const file = newFile();
  return { store: new SqliteReadModelStore(file), cleanup: async () => rmSync(file, { force: true }) };
});

describe('SqliteReadModelStore across a restart', () => {
  it('keeps documents, tombstones, indexes and checkpoints committed together', async () => {
    const file = newFile();
    const first = new SqliteReadModelStore(file, { flushMs: 60_000 });
    await first.ensureIndex('c', 'members');
    await first.put('c', 'a', { members: ['u1', 'u2'], nested: { n: 1 } }, 1);
    await first.put('c', 'b', { members: ['u2'] }, 2);
    await first.put('c', 'b', null, 3);
    await first.setCheckpoint('p', 3);
    await first.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = new SqliteReadModelStore(file);
    expect(await second.getCheckpoint('p')).toBe(3);
    expect(await second.get('c', 'a')).toEqual({ _id: 'a', _position: 1, members: ['u1', 'u2'], nested: { n: 1 } });
    expect((await second.find('c', { members: 'u2' })).map((d) => d._id)).toEqual(['a']);
    // The tombstone survived: an older replay cannot bring b back.
    expect(await second.put('c', 'b', { members: ['u2'] }, 2)).toBe(false);
    await second.close();
  });

  it('writes nothing of a group that was not committed (a crash loses documents and checkpoint together)', async () => {
    const file = newFile();
    const store = new SqliteReadModelStore(file, { flushMs: 60_000 });
    await store.put('c', 'a', { v: 1 }, 1);
    await store.setCheckpoint('p', 1);
    store.flush();
    await store.put('c', 'a', { v: 2 }, 2);
    await store.setCheckpoint('p', 2);
    // Another connection sees the file as a crash now would leave it.
    const other = new SqliteReadModelStore(file);
    expect(await other.getCheckpoint('p')).toBe(1);
    expect(await other.get('c', 'a')).toEqual({ _id: 'a', _position: 1, v: 1 });
    await other.close();
    await store.close();
  });
});
