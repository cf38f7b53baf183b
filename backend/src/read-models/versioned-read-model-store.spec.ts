import { InMemoryReadModelStore } from './in-memory-read-model-store';
import { describeReadModelStoreConformance } from './read-model-store.conformance';
import { physicalName, VersionedReadModelStore, versionKey } from './versioned-read-model-store';

// Behind the wrapper every port behaviour is unchanged (conformance collections belong to no projection,
// and the ones of a projection are exercised below).
describeReadModelStoreConformance('versioned (in memory)', async () => ({
  store: new VersionedReadModelStore(new InMemoryReadModelStore(), [{ name: 'p', collections: ['docs'] }], { refreshMs: 0 }),
  cleanup: async () => undefined,
}));

describe('VersionedReadModelStore', () => {
  const projections = [
    { name: 'ratings', collections: ['ratings', 'latest-ratings'] },
    { name: 'users', collections: ['users'] },
  ];

  it('version 0 uses the plain names, so a store written before versions existed keeps working', async () => {
    const inner = new InMemoryReadModelStore();
    await inner.put('ratings', 'r1', { v: 1 }, 1);
    await inner.setCheckpoint('ratings', 1);
    const store = new VersionedReadModelStore(inner, projections, { refreshMs: 0 });
    expect(await store.get('ratings', 'r1')).toEqual({ _id: 'r1', _position: 1, v: 1 });
    expect(await store.getCheckpoint('ratings')).toBe(1);
    expect(physicalName('ratings', 0)).toBe('ratings');
    expect(physicalName('ratings', 3)).toBe('ratings__v3');
  });

  it('a pinned version is written apart, and activating it switches every collection and the checkpoint at once', async () => {
    const inner = new InMemoryReadModelStore();
    const store = new VersionedReadModelStore(inner, projections, { refreshMs: 0 });
    await store.put('ratings', 'r1', { v: 'old' }, 1);
    await store.put('users', 'u1', { name: 'Ann' }, 2);
    await store.setCheckpoint('ratings', 1);

    const next = store.atVersion('ratings', 1);
    await next.put('ratings', 'r1', { v: 'new' }, 1);
    await next.put('latest-ratings', 'u1', { v: 'new' }, 1);
    await next.setCheckpoint('ratings', 5);
    // The active version still serves; other projections are shared by both views.
    expect(await store.get('ratings', 'r1')).toMatchObject({ v: 'old' });
    expect(await store.getCheckpoint('ratings')).toBe(1);
    expect(await next.get('users', 'u1')).toMatchObject({ name: 'Ann' });
    expect(await inner.get('ratings__v1', 'r1')).toMatchObject({ v: 'new' });

    await store.activate('ratings', 1);
    expect(await inner.getCheckpoint(versionKey('ratings'))).toBe(1);
    expect(await store.get('ratings', 'r1')).toMatchObject({ v: 'new' });
    expect(await store.get('latest-ratings', 'u1')).toMatchObject({ v: 'new' });
    expect(await store.getCheckpoint('ratings')).toBe(5);
    expect(await store.get('users', 'u1')).toMatchObject({ name: 'Ann' });

    await store.dropVersion('ratings', 0);
    expect(await inner.get('ratings', 'r1')).toBeNull();
    expect(await inner.getCheckpoint('ratings')).toBe(0);
  });

  it('another process sees a switch within its refresh interval', async () => {
    const inner = new InMemoryReadModelStore();
    const worker = new VersionedReadModelStore(inner, projections, { refreshMs: 0 });
    const api = new VersionedReadModelStore(inner, projections, { refreshMs: 20 });
    try {
      await worker.atVersion('users', 2).put('users', 'u1', { name: 'v2' }, 1);
      await worker.put('users', 'u1', { name: 'v0' }, 1);
      expect(await api.get('users', 'u1')).toMatchObject({ name: 'v0' });
      await worker.activate('users', 2);
      const deadline = Date.now() + 1000;
      while (api.versionOf('users') !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await api.get('users', 'u1')).toMatchObject({ name: 'v2' });
    } finally {
      await api.close();
    }
  });

  it('bulkPut through a version writes each entry with its guard', async () => {
    const store = new VersionedReadModelStore(new InMemoryReadModelStore(), projections, { refreshMs: 0 });
    await store.put('users', 'a', { v: 1 }, 10);
    const written = await store.atVersion('users', 0).bulkPut('users', [
      { id: 'a', doc: { v: 0 }, position: 5 },
      { id: 'b', doc: { v: 2 }, position: 6 },
      { id: 'c', doc: null, position: 7 },
    ]);
    expect(written).toBe(2);
    expect(await store.get('users', 'a')).toMatchObject({ v: 1 });
    expect(await store.get('users', 'b')).toMatchObject({ v: 2 });
  });
});
