import { containerRuntimeMayExist, sharedMongoDatabase } from '../testing/containers';
import { findFilter, guardFilter, MongoReadModelStore, sortSpec, storedFields } from './mongo-read-model-store';
import { describeReadModelStoreConformance } from './read-model-store.conformance';

// Starting a container (and pulling its image the first time) takes a while; the unit tests are instant.
jest.setTimeout(180_000);

/** A database of its own for this run, dropped at the end; one client (and server) for the whole file. */
const { dbName, get: getShared } = sharedMongoDatabase('joy_conf', { ignoreUndefined: true });

describeReadModelStoreConformance(
  'MongoDB',
  process.env.MONGO_URL || containerRuntimeMayExist()
    ? async () => {
        const started = await getShared();
        if (!started) return null;
        // The client is shared, so the store's close leaves it open; the suite drops its collections itself.
        return { store: new MongoReadModelStore(started.client, { dbName }), cleanup: async () => undefined };
      }
    : null,
);

const mongoMayRun = Boolean(process.env.MONGO_URL) || containerRuntimeMayExist();
describe(`MongoReadModelStore bulkPut on a server${mongoMayRun ? '' : ' — skipped: no MongoDB (set MONGO_URL or provide a container runtime)'}`, () => {
  const it_ = mongoMayRun ? it : it.skip;

  it_('writes new and newer entries, skips stale ones, and keeps tombstones', async () => {
    const started = await getShared();
    if (!started) return;
    const store = new MongoReadModelStore(started.client, { dbName });
    const col = `bulk_${Date.now().toString(36)}`;
    try {
      await store.put(col, 'a', { v: 1 }, 10);
      const written = await store.bulkPut(col, [
        { id: 'a', doc: { v: 0 }, position: 5 }, // stale
        { id: 'b', doc: { v: 2 }, position: 6 },
        { id: 'c', doc: null, position: 7 },
        { id: 'd', doc: { v: 3 }, position: 8 },
        { id: 'd', doc: { v: 3 }, position: 8 }, // a duplicate in the same batch
      ]);
      expect(written).toBe(3);
      expect(await store.get(col, 'a')).toEqual({ _id: 'a', _position: 10, v: 1 });
      expect(await store.get(col, 'b')).toEqual({ _id: 'b', _position: 6, v: 2 });
      expect(await store.get(col, 'd')).toEqual({ _id: 'd', _position: 8, v: 3 });
      expect(await store.get(col, 'c')).toBeNull();
      expect(await store.put(col, 'c', { v: 1 }, 7)).toBe(false);
    } finally {
      await store.dropCollection(col);
    }
  });
});

describe('MongoReadModelStore filters (no server)', () => {
  it('the guard matches only a missing document or one with a lower position', () => {
    expect(guardFilter('a', 7)).toEqual({
      _id: 'a',
      $or: [{ _position: { $lt: 7 } }, { _position: { $exists: false } }],
    });
  });

  it('stores the fields with the position, never a foreign _id or a deletion marker; null is a tombstone', () => {
    expect(storedFields({ name: 'Ann', nested: { n: 1 }, _id: 'other', _deleted: true }, 5)).toEqual({
      name: 'Ann',
      nested: { n: 1 },
      _position: 5,
    });
    expect(storedFields({ _position: 1, x: 1 }, 5)).toEqual({ x: 1, _position: 5 });
    expect(storedFields(null, 9)).toEqual({ _deleted: true, _position: 9 });
  });

  it('find uses equality on every field and excludes tombstones', () => {
    expect(findFilter({ group: 'g1', 'owner.id': 2, endedAt: null })).toEqual({
      group: 'g1',
      'owner.id': 2,
      endedAt: null,
      _deleted: { $exists: false },
    });
    expect(findFilter({})).toEqual({ _deleted: { $exists: false } });
    expect(() => findFilter({ $where: 'true' })).toThrow(RangeError);
  });

  it('sorts by the field with ties broken by _id ascending', () => {
    expect(sortSpec({ field: 'score', direction: 'desc' })).toEqual({ score: -1, _id: 1 });
    expect(sortSpec({ field: 'score', direction: 'asc' })).toEqual({ score: 1, _id: 1 });
    expect(sortSpec({ field: '_id', direction: 'desc' })).toEqual({ _id: -1 });
  });

  it('connects lazily: a store can be created and closed without a server', async () => {
    const store = new MongoReadModelStore('mongodb://127.0.0.1:1/joy');
    await store.close();
  });
});
