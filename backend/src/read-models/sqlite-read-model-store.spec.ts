import Database from 'better-sqlite3';
import { Logger } from '@nestjs/common';
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

describe('SqliteReadModelStore files of an earlier format', () => {
  it('marks every projection of a file built before format 2 for a rebuild, once, and leaves newer files alone', async () => {
    const file = newFile();
    const first = new SqliteReadModelStore(file);
    await first.put('ratings', 'r1', { v: 1 }, 7);
    await first.setCheckpoint('$code:ratings', 1);
    await first.setCheckpoint('$code:rating-days', 2);
    await first.setCheckpoint('ratings', 7);
    await first.close();
    // As a version before the format left it: the same rows, no format.
    const raw = new Database(file);
    raw.prepare("DELETE FROM checkpoints WHERE name = '$format'").run();
    raw.close();

    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const reopened = new SqliteReadModelStore(file);
    // Code versions forgotten: the start-up catch-up builds both projections again from position 0.
    expect(await reopened.getCheckpoint('$code:ratings')).toBe(0);
    expect(await reopened.getCheckpoint('$code:rating-days')).toBe(0);
    expect(await reopened.getCheckpoint('ratings')).toBe(7);
    expect(await reopened.getCheckpoint('$format')).toBe(2);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('the read models of rating-days, ratings are built again from the events'));
    await reopened.setCheckpoint('$code:ratings', 1);
    await reopened.close();

    warn.mockClear();
    const again = new SqliteReadModelStore(file);
    expect(await again.getCheckpoint('$code:ratings')).toBe(1);
    expect(warn).not.toHaveBeenCalled();
    await again.close();
    // A new file is of the current format from the start.
    const fresh = new SqliteReadModelStore(newFile());
    expect(await fresh.getCheckpoint('$format')).toBe(2);
    expect(warn).not.toHaveBeenCalled();
    await fresh.close();
    warn.mockRestore();
  });
});

describe('SqliteReadModelStore loading in bulk (the start-up catch-up)', () => {
  it('commits only when enough is pending or the load ends, and finds every document it wrote, in the file too', async () => {
    const file = newFile();
    // A small read cache: most documents are read back from the file, not from memory.
    const store = new SqliteReadModelStore(file, { flushMs: 1, maxPending: 10, cacheSize: 5 });
    const other = new SqliteReadModelStore(file);
    let seenMidway = -1;
    await store.bulk(async () => {
      await store.ensureIndex('fresh', 'group');
      for (let i = 1; i <= 300; i++) await store.put('fresh', `doc-${i}`, { i, group: i % 3 }, i);
      await store.setCheckpoint('p', 300);
      // No timed commit meanwhile: a wait longer than flushMs leaves the last writes pending.
      await new Promise((resolve) => setImmediate(resolve));
      seenMidway = await other.getCheckpoint('p');
      for (let i = 1; i <= 300; i += 7) await store.put('fresh', `doc-${i}`, { i, group: i % 3, again: true }, 300 + i);
    }, 1000);
    expect(seenMidway).toBe(0);
    const reopened = new SqliteReadModelStore(file);
    expect(await reopened.getCheckpoint('p')).toBe(300);
    for (let i = 1; i <= 300; i++) {
      const doc = await store.get<{ i: number; again?: boolean }>('fresh', `doc-${i}`);
      expect(doc).toEqual(expect.objectContaining({ i, _position: i % 7 === 1 ? 300 + i : i }));
      expect(await reopened.get('fresh', `doc-${i}`)).toEqual(doc);
    }
    expect(await store.get('fresh', 'doc-301')).toBeNull();
    expect((await reopened.find('fresh', { group: 1 })).length).toBe(100);
    // Positions stay guarded for documents read back from the file.
    expect(await store.put('fresh', 'doc-2', { i: 0 }, 1)).toBe(false);
    await Promise.all([store.close(), other.close(), reopened.close()]);
  });

  it('keeps the index right for a document written again while its commit before is still being written', async () => {
    const file = newFile();
    // A commit per two writes, each handed to the writer thread while the next is staged.
    const store = new SqliteReadModelStore(file, { maxPending: 2 });
    await store.ensureIndex('members', 'group');
    // Another connection holds the write lock for a moment: the first commit waits on the writer thread meanwhile.
    const other = new Database(file);
    await store.bulk(async () => {
      other.exec('BEGIN IMMEDIATE');
      await store.put('members', 'a', { group: 'old' }, 1);
      await store.put('members', 'b', { group: 'old' }, 2);
      await store.put('members', 'a', { group: 'new' }, 3);
      expect(await store.get('members', 'a')).toEqual({ _id: 'a', _position: 3, group: 'new' });
      other.exec('ROLLBACK');
      await store.put('members', 'b', null, 4);
    }, 2);
    expect(await store.find('members', { group: 'old' })).toEqual([]);
    expect((await store.find('members', { group: 'new' })).map((d) => d._id)).toEqual(['a']);
    // No index row is left behind for the old key (it would be read, and skipped, by every query of that key).
    expect(other.prepare('SELECT key, id FROM idx').all()).toEqual([{ key: '"new"', id: 'a' }]);
    other.close();
    await store.close();
  });

  it('answers the newest document after the load, not one read while an earlier commit was being written', async () => {
    // A catch-up's document written in every batch (a person's totals), read back between batches once: after the
    // load, and in the file, it is the last batch's (it was the read one: 49,998 ratings counted of 50,000).
    const file = newFile();
    const store = new SqliteReadModelStore(file);
    await store.bulk(async () => {
      for (let batch = 1; batch <= 2; batch++) {
        await store.bulkPut('totals', [{ id: 'u1', doc: { count: batch }, position: batch }]);
        if (batch === 1) expect(store.getNow('totals', 'u1')).toEqual({ _id: 'u1', _position: 1, count: 1 });
        // The batch's commit, handed to the writer thread once the one before is written.
        store.flush();
      }
    });
    expect(await store.get('totals', 'u1')).toEqual({ _id: 'u1', _position: 2, count: 2 });
    // The live path goes on from it, not from the first batch's.
    expect(await store.put('totals', 'u1', { count: 3 }, 2)).toBe(false);
    const reopened = new SqliteReadModelStore(file);
    expect(await reopened.get('totals', 'u1')).toEqual({ _id: 'u1', _position: 2, count: 2 });
    await Promise.all([store.close(), reopened.close()]);
  });

  it('commits what the load wrote after its last commit after that commit, not before it (nothing older overwrites it)', async () => {
    const file = newFile();
    const store = new SqliteReadModelStore(file);
    await store.bulk(async () => {
      await store.bulkPut('totals', [{ id: 'u1', doc: { count: 1 }, position: 1 }]);
      await store.setCheckpoint('p', 1);
      // Handed to a writer thread that is only starting; then one more write, committed when the load ends.
      store.flush();
      await store.put('totals', 'u1', { count: 2 }, 2);
      await store.setCheckpoint('p', 2);
    });
    await store.close();
    const reopened = new SqliteReadModelStore(file);
    expect(await reopened.getCheckpoint('p')).toBe(2);
    expect(await reopened.get('totals', 'u1')).toEqual({ _id: 'u1', _position: 2, count: 2 });
    await reopened.close();
  });

  it('writes a commit larger than one message to the writer thread whole, in one transaction', async () => {
    const file = newFile();
    const store = new SqliteReadModelStore(file);
    await store.ensureIndex('many', 'group');
    const reader = new Database(file, { readonly: true });
    const seen = new Set<number>();
    await store.bulk(async () => {
      for (let i = 1; i <= 5000; i++) await store.put('many', `doc-${i}`, { i, group: i % 2 }, i);
      await store.setCheckpoint('p', 5000);
      // 5000 document rows and their keys cross to the writer thread in several parts: a reader sees all or none.
      store.flush();
      for (let n = 0; n < 100; n++) {
        seen.add(reader.prepare('SELECT COUNT(*) FROM docs').pluck().get() as number);
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    expect([...seen].every((n) => n === 0 || n === 5000)).toBe(true);
    reader.close();
    const reopened = new SqliteReadModelStore(file);
    expect(await reopened.getCheckpoint('p')).toBe(5000);
    expect((await reopened.find('many', { group: 1 })).length).toBe(2500);
    await Promise.all([store.close(), reopened.close()]);
  });

  it('fails the load when the file refuses its commit, and keeps those writes pending for the next commit', async () => {
    const file = newFile();
    const store = new SqliteReadModelStore(file);
    await store.put('c', 'before', { v: 0 }, 1);
    store.flush();
    // Another process holds the file's write lock past the writer's wait for it (5 s).
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const load = store.bulk(async () => {
      for (let i = 1; i <= 50; i++) await store.put('c', `doc-${i}`, { v: i }, 1 + i);
      await store.setCheckpoint('p', 51);
      // Handed to the writer thread, which cannot get the lock; the load goes on meanwhile.
      store.flush();
      expect(await store.get('c', 'doc-50')).toEqual({ _id: 'doc-50', _position: 51, v: 50 });
    });
    await expect(load).rejects.toThrow(/locked/);
    other.exec('ROLLBACK');
    other.close();
    expect(await store.get('c', 'doc-50')).toEqual({ _id: 'doc-50', _position: 51, v: 50 });
    store.flush();
    const reopened = new SqliteReadModelStore(file);
    expect(await reopened.getCheckpoint('p')).toBe(51);
    expect((await reopened.find('c', {})).length).toBe(51);
    await Promise.all([store.close(), reopened.close()]);
  }, 20_000);
});
