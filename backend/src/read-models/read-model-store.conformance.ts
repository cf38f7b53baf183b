import { ReadModelStore } from './read-model-store.port';

export interface ReadModelStoreFixture {
  store: ReadModelStore;
  /** Removes what the fixture created; must tolerate an already closed store. */
  cleanup: () => Promise<void>;
}

/**
 * The behaviour every ReadModelStore adapter must have. Collection and checkpoint names are unique per case,
 * so a shared MongoDB database can be used. `create` is null (or resolves to null) when the backend is not
 * available: the cases are then skipped with a message rather than failed.
 */
export function describeReadModelStoreConformance(
  name: string,
  create: (() => Promise<ReadModelStoreFixture | null>) | null,
): void {
  const skipMessage = `${name} read-model conformance skipped: set MONGO_URL or provide a container runtime`;
  if (!create) {
    describe.skip(`ReadModelStore conformance: ${name}`, () => {
      it(`skipped: ${name} is not available (set MONGO_URL or provide a container runtime)`, () => undefined);
    });
    // eslint-disable-next-line no-console
    console.warn(skipMessage);
    return;
  }

  describe(`ReadModelStore conformance: ${name}`, () => {
    const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    let counter = 0;
    let fixture: ReadModelStoreFixture | null = null;
    let store: ReadModelStore;
    /** A collection name unique to this case. */
    let col: string;
    let warned = false;

    beforeEach(async () => {
      col = `conf_${run}_${++counter}`;
      fixture = await create();
      if (fixture) store = fixture.store;
      else if (!warned) {
        warned = true;
        // eslint-disable-next-line no-console
        console.warn(skipMessage);
      }
    });
    afterEach(async () => {
      if (!fixture) return;
      await fixture.store.dropCollection(col);
      await fixture.store.close();
      await fixture.cleanup();
    });

    const test = (title: string, body: () => Promise<void>) =>
      it(title, async () => {
        if (fixture) await body();
      });

    test('get returns what put wrote, with _id and _position; missing is null', async () => {
      expect(await store.get(col, 'a')).toBeNull();
      expect(await store.put(col, 'a', { name: 'Ann', tags: ['x'], nested: { n: 1 } }, 5)).toBe(true);
      expect(await store.get(col, 'a')).toEqual({ _id: 'a', _position: 5, name: 'Ann', tags: ['x'], nested: { n: 1 } });
      expect(await store.put(col, 'a', { name: 'Anna' }, 6)).toBe(true);
      // A put replaces the document (no merge).
      expect(await store.get(col, 'a')).toEqual({ _id: 'a', _position: 6, name: 'Anna' });
    });

    test('a stale or equal position is ignored', async () => {
      await store.put(col, 'a', { v: 10 }, 10);
      expect(await store.put(col, 'a', { v: 10.5 }, 10)).toBe(false);
      expect(await store.put(col, 'a', { v: 9 }, 9)).toBe(false);
      expect(await store.get(col, 'a')).toEqual({ _id: 'a', _position: 10, v: 10 });
    });

    test('a delete leaves a tombstone that blocks older replays, not newer events', async () => {
      await store.ensureIndex(col, 'kind');
      await store.put(col, 'a', { kind: 'k' }, 3);
      expect(await store.put(col, 'a', null, 5)).toBe(true);
      expect(await store.get(col, 'a')).toBeNull();
      expect(await store.find(col, {})).toEqual([]);
      expect(await store.find(col, { kind: 'k' })).toEqual([]);
      expect(await store.put(col, 'a', { kind: 'k' }, 4)).toBe(false);
      expect(await store.put(col, 'a', null, 5)).toBe(false);
      expect(await store.get(col, 'a')).toBeNull();
      expect(await store.put(col, 'a', { kind: 'k' }, 6)).toBe(true);
      expect(await store.find(col, { kind: 'k' })).toEqual([{ _id: 'a', _position: 6, kind: 'k' }]);
    });

    for (const indexed of [false, true]) {
      const how = indexed ? 'with an index' : 'without an index';

      test(`find by field and by array membership (${how})`, async () => {
        if (indexed) {
          await store.ensureIndex(col, 'group');
          await store.ensureIndex(col, 'members');
          await store.ensureIndex(col, 'members'); // idempotent
        }
        await store.put(col, 'a', { group: 'g1', members: ['u1', 'u2'], active: true }, 1);
        await store.put(col, 'b', { group: 'g1', members: ['u2'], active: false }, 2);
        await store.put(col, 'c', { group: 'g2', members: [], active: true }, 3);
        await store.put(col, 'd', { group: 2, members: ['u1'] }, 4);
        const ids = async (query: Record<string, string | number | boolean | null>) =>
          (await store.find(col, query)).map((d) => d._id).sort();
        expect(await ids({ group: 'g1' })).toEqual(['a', 'b']);
        expect(await ids({ group: 2 })).toEqual(['d']);
        expect(await ids({ group: '2' })).toEqual([]);
        expect(await ids({ members: 'u2' })).toEqual(['a', 'b']);
        expect(await ids({ members: 'u1' })).toEqual(['a', 'd']);
        expect(await ids({ members: 'u1', group: 'g1' })).toEqual(['a']);
        expect(await ids({ active: true })).toEqual(['a', 'c']);
        expect(await ids({ group: 'none' })).toEqual([]);
        expect(await ids({})).toEqual(['a', 'b', 'c', 'd']);
      });

      test(`find sorts ascending and descending, and limits (${how})`, async () => {
        if (indexed) await store.ensureIndex(col, 'user');
        const scores = { a: 3, b: 1, c: 4, d: 2 };
        let position = 0;
        for (const [id, score] of Object.entries(scores)) await store.put(col, id, { user: 'u', score }, ++position);
        await store.put(col, 'other', { user: 'v', score: 0 }, ++position);
        const asc = await store.find(col, { user: 'u' }, { sort: { field: 'score', direction: 'asc' } });
        expect(asc.map((d) => d._id)).toEqual(['b', 'd', 'a', 'c']);
        const desc = await store.find(col, { user: 'u' }, { sort: { field: 'score', direction: 'desc' }, limit: 2 });
        expect(desc.map((d) => d._id)).toEqual(['c', 'a']);
        expect(await store.find(col, { user: 'u' }, { limit: 3 })).toHaveLength(3);
      });

      test(`indexes keep up with updates and deletes (${how})`, async () => {
        if (indexed) {
          await store.ensureIndex(col, 'status');
          await store.ensureIndex(col, 'tags');
        }
        await store.put(col, 'a', { status: 'open', tags: ['x', 'y'] }, 1);
        await store.put(col, 'a', { status: 'closed', tags: ['y'] }, 2);
        expect(await store.find(col, { status: 'open' })).toEqual([]);
        expect(await store.find(col, { tags: 'x' })).toEqual([]);
        expect((await store.find(col, { status: 'closed' })).map((d) => d._id)).toEqual(['a']);
        expect((await store.find(col, { tags: 'y' })).map((d) => d._id)).toEqual(['a']);
        await store.put(col, 'a', null, 3);
        expect(await store.find(col, { status: 'closed' })).toEqual([]);
        expect(await store.find(col, { tags: 'y' })).toEqual([]);
      });
    }

    test('an index declared after the documents exist finds them', async () => {
      await store.put(col, 'a', { email: 'a@example.org' }, 1);
      await store.ensureIndex(col, 'email');
      expect((await store.find(col, { email: 'a@example.org' })).map((d) => d._id)).toEqual(['a']);
    });

    test('bulkPut writes each entry with its guard, keeps the indexes, counts what it wrote and keeps none of its input', async () => {
      await store.ensureIndex(col, 'kind');
      await store.put(col, 'a', { kind: 'old', v: 1 }, 10);
      await store.put(col, 'gone', null, 10);
      const input = { kind: 'k', list: [1], nested: { n: 1 } };
      const written = await store.bulkPut(col, [
        { id: 'a', doc: { kind: 'k', v: 0 }, position: 5 }, // older than the stored document
        { id: 'gone', doc: { kind: 'k' }, position: 9 }, // older than its deletion
        { id: 'b', doc: input, position: 11 },
        { id: 'c', doc: { kind: 'k', nested: { n: 2 } }, position: 12 },
        { id: 'd', doc: null, position: 13 },
      ]);
      expect(written).toBe(3);
      input.list.push(2);
      input.nested.n = 3;
      expect(await store.get(col, 'a')).toEqual({ _id: 'a', _position: 10, kind: 'old', v: 1 });
      expect(await store.get(col, 'gone')).toBeNull();
      expect(await store.get(col, 'b')).toEqual({ _id: 'b', _position: 11, kind: 'k', list: [1], nested: { n: 1 } });
      expect((await store.find(col, { kind: 'k' })).map((d) => d._id).sort()).toEqual(['b', 'c']);
      expect(await store.get(col, 'd')).toBeNull();
      // The deletion left a tombstone, as put's does.
      expect(await store.put(col, 'd', { kind: 'k' }, 12)).toBe(false);
      expect(await store.bulkPut(col, [])).toBe(0);
      expect(await store.bulkPut(col, [{ id: 'c', doc: { kind: 'other' }, position: 14 }])).toBe(1);
      expect((await store.find(col, { kind: 'k' })).map((d) => d._id)).toEqual(['b']);
      expect((await store.find(col, { kind: 'other' })).map((d) => d._id)).toEqual(['c']);
    });

    test('checkpoints default to 0 and persist', async () => {
      const checkpoint = `${col}_checkpoint`;
      expect(await store.getCheckpoint(checkpoint)).toBe(0);
      await store.setCheckpoint(checkpoint, 42);
      expect(await store.getCheckpoint(checkpoint)).toBe(42);
      await store.setCheckpoint(checkpoint, 43);
      expect(await store.getCheckpoint(checkpoint)).toBe(43);
      expect(await store.getCheckpoint(`${checkpoint}_other`)).toBe(0);
    });

    test('dropCollection removes every document and tombstone, and only of that collection', async () => {
      const other = `${col}_other`;
      await store.ensureIndex(col, 'k');
      await store.put(col, 'a', { k: 1 }, 5);
      await store.put(col, 'b', null, 6);
      await store.put(other, 'a', { k: 1 }, 5);
      await store.dropCollection(col);
      expect(await store.get(col, 'a')).toBeNull();
      expect(await store.find(col, { k: 1 })).toEqual([]);
      expect((await store.get(other, 'a'))?._position).toBe(5);
      // A rebuild replays from the start: the old positions no longer block.
      expect(await store.put(col, 'a', { k: 1 }, 1)).toBe(true);
      expect(await store.put(col, 'b', { k: 1 }, 2)).toBe(true);
      expect((await store.find(col, { k: 1 })).map((d) => d._id).sort()).toEqual(['a', 'b']);
      await store.dropCollection(other);
    });

    test('a caller cannot change stored documents, by the input or a returned document', async () => {
      const input = { list: [1], nested: { n: 1 } };
      await store.put(col, 'a', input, 1);
      input.list.push(2);
      input.nested.n = 2;
      // A returned document is either a copy or frozen (the in-memory adapter hands out frozen documents).
      const attempt = (mutate: () => void) => {
        try {
          mutate();
        } catch (err) {
          expect((err as Error).name).toBe('TypeError');
        }
      };
      const got = await store.get<{ list: number[]; nested: { n: number } }>(col, 'a');
      attempt(() => got!.list.push(3));
      attempt(() => (got!.nested.n = 3));
      const [found] = await store.find<{ list: number[]; nested: { n: number } }>(col, {});
      attempt(() => found.list.push(4));
      expect(await store.get(col, 'a')).toEqual({ _id: 'a', _position: 1, list: [1], nested: { n: 1 } });
    });
  });
}
