import { describeReadModelStoreConformance } from './read-model-store.conformance';
import { InMemoryReadModelStore } from './in-memory-read-model-store';

describeReadModelStoreConformance('in memory', async () => ({
  store: new InMemoryReadModelStore(),
  cleanup: async () => undefined,
}));

describe('InMemoryReadModelStore specifics', () => {
  it('null matches a missing field, and dotted paths reach nested fields', async () => {
    const store = new InMemoryReadModelStore();
    await store.ensureIndex('c', 'endedAt');
    await store.put('c', 'a', { endedAt: null, owner: { id: 'u1' } }, 1);
    await store.put('c', 'b', { owner: { id: 'u2' } }, 2);
    await store.put('c', 'c', { endedAt: '2024-01-01' }, 3);
    expect((await store.find('c', { endedAt: null })).map((d) => d._id).sort()).toEqual(['a', 'b']);
    expect((await store.find('c', { 'owner.id': 'u2' })).map((d) => d._id)).toEqual(['b']);
  });

  it('sorts missing values first ascending and breaks ties by _id', async () => {
    const store = new InMemoryReadModelStore();
    await store.put('c', 'b', { at: 1 }, 1);
    await store.put('c', 'a', { at: 1 }, 2);
    await store.put('c', 'z', {}, 3);
    const asc = await store.find('c', {}, { sort: { field: 'at', direction: 'asc' } });
    expect(asc.map((d) => d._id)).toEqual(['z', 'a', 'b']);
    const desc = await store.find('c', {}, { sort: { field: 'at', direction: 'desc' } });
    expect(desc.map((d) => d._id)).toEqual(['a', 'b', 'z']);
  });
});
