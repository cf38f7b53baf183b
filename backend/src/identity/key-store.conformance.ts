import type { KeyArchive, KeyRecord, KeyStore } from './key-store';

export interface KeyStoreFixture {
  /**
   * Opens an instance on this case's storage (the same file or database every time): a restart of the process,
   * or another replica beside the first. The suite closes every instance it opened before `cleanup`.
   */
  open: () => KeyStore;
  /** Removes what the fixture created. */
  cleanup: () => Promise<void>;
}

/**
 * How long an instance may trust a live key from its cache (LIVE_KEY_TTL_MS in key-store.ts, not exported): the
 * longest another replica may go on using a key after it was destroyed. Raising it there fails these cases, which
 * is the point: it is a privacy promise (sessions end within this delay on every replica).
 */
export const LIVE_KEY_TTL_MS = 5000;

/** Fakes only the clock (Date), so database drivers keep their real timers, sockets and ticks. */
function fakeTheClock(): void {
  jest.useFakeTimers({
    now: Date.now(),
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}

const KEY_BYTES = 32;

/**
 * The behaviour every KeyStore adapter must have for crypto-shredding to hold: one stable 32-byte key per person,
 * and a destruction that is final, seen by every instance on the same storage (at the latest after the cache's
 * TTL), and never undone by a racing or later keyFor.
 *
 * `create` gives fresh, empty storage per case. It is null (or resolves to null) when the backend is not available:
 * the cases are then skipped, saying `unavailable` (why, and how to make them run), rather than failed.
 */
export function describeKeyStoreConformance(
  name: string,
  create: (() => Promise<KeyStoreFixture | null>) | null,
  unavailable = `${name} is not available`,
): void {
  const skipMessage = `KeyStore conformance (${name}) skipped: ${unavailable}`;
  if (!create) {
    describe.skip(`KeyStore conformance: ${name}`, () => {
      it(`skipped: ${unavailable}`, () => undefined);
    });
    // eslint-disable-next-line no-console
    console.warn(skipMessage);
    return;
  }

  describe(`KeyStore conformance: ${name}`, () => {
    let fixture: KeyStoreFixture | null = null;
    let opened: KeyStore[] = [];
    let warned = false;

    /** An instance on this case's storage, closed after the case. */
    const open = (): KeyStore => {
      const store = fixture!.open();
      opened.push(store);
      return store;
    };
    /** Closes an instance now (a restart); closing it again after the case is harmless. */
    const close = async (store: KeyStore) => store.close();

    beforeEach(async () => {
      fixture = await create();
      if (!fixture && !warned) {
        warned = true;
        // eslint-disable-next-line no-console
        console.warn(skipMessage);
      }
    });
    afterEach(async () => {
      jest.useRealTimers();
      const stores = opened;
      opened = [];
      for (const store of stores) await store.close();
      if (fixture) await fixture.cleanup();
      fixture = null;
    });

    const test = (title: string, body: () => Promise<void>) =>
      it(title, async () => {
        if (fixture) await body();
      });

    const expectKey = (key: Buffer | null): Buffer => {
      expect(Buffer.isBuffer(key)).toBe(true);
      expect(key).toHaveLength(KEY_BYTES);
      return key!;
    };
    /** What a destroyed person reads from an instance: no key by either method, and destroyed. */
    const expectDestroyed = async (store: KeyStore, userId: string) => {
      expect(await store.keyFor(userId)).toBeNull();
      expect(await store.existingKey(userId)).toBeNull();
      expect(await store.isDestroyed(userId)).toBe(true);
    };

    test('keyFor gives a 32-byte key, the same on every call and after a restart, and another to each person', async () => {
      const first = open();
      const ada = expectKey(await first.keyFor('ada'));
      expect(ada.equals(Buffer.alloc(KEY_BYTES))).toBe(false);
      expect(await first.keyFor('ada')).toEqual(ada);
      expect(await first.existingKey('ada')).toEqual(ada);
      const bob = expectKey(await first.keyFor('bob'));
      expect(bob).not.toEqual(ada);
      expect(await first.isDestroyed('ada')).toBe(false);
      await close(first);

      // Persisted: a restart reads the same keys back, it does not make new ones.
      const again = open();
      expect(await again.existingKey('ada')).toEqual(ada);
      expect(await again.keyFor('ada')).toEqual(ada);
      expect(await again.keyFor('bob')).toEqual(bob);
      expect(await again.isDestroyed('ada')).toBe(false);
    });

    test('existingKey never creates a key: null for an unknown person, who is not destroyed and can still get one', async () => {
      const first = open();
      expect(await first.existingKey('ada')).toBeNull();
      expect(await first.existingKey('ada')).toBeNull();
      // Unknown is not destroyed (a destroyed person has a tombstone): sessions of a new person do not end.
      expect(await first.isDestroyed('ada')).toBe(false);
      // Nothing was stored: a restart does not find a key either.
      await close(first);
      const second = open();
      const other = open();
      expect(await second.existingKey('ada')).toBeNull();
      expect(await other.existingKey('ada')).toBeNull();

      // A later keyFor still creates the key, and the miss was not remembered as "no key" by anyone.
      const ada = expectKey(await second.keyFor('ada'));
      expect(await second.existingKey('ada')).toEqual(ada);
      expect(await other.existingKey('ada')).toEqual(ada);
      expect(await other.keyFor('ada')).toEqual(ada);
      expect(await other.isDestroyed('ada')).toBe(false);
    });

    test('destroy leaves no key: keyFor and existingKey return null and isDestroyed is true, also after a restart', async () => {
      const first = open();
      expectKey(await first.keyFor('ada'));
      const bob = expectKey(await first.keyFor('bob'));
      await first.destroy('ada');
      await expectDestroyed(first, 'ada');
      // Only that person's key.
      expect(await first.keyFor('bob')).toEqual(bob);
      expect(await first.isDestroyed('bob')).toBe(false);
      await close(first);

      const again = open();
      await expectDestroyed(again, 'ada');
      expect(await again.existingKey('bob')).toEqual(bob);
    });

    test(`another instance that had the key cached sees the destruction at the latest after ${LIVE_KEY_TTL_MS} ms`, async () => {
      fakeTheClock();
      const destroyer = open();
      const replica = open();
      const people = ['ada', 'bob', 'cy', 'dee'];
      const keys = new Map<string, Buffer>();
      for (const id of people) keys.set(id, expectKey(await destroyer.keyFor(id)));
      // The replica reads (and caches) every key, by each of the methods.
      for (const id of people) {
        expect(await replica.keyFor(id)).toEqual(keys.get(id));
        expect(await replica.existingKey(id)).toEqual(keys.get(id));
        expect(await replica.isDestroyed(id)).toBe(false);
      }
      for (const id of people.slice(0, 3)) await destroyer.destroy(id);

      jest.setSystemTime(Date.now() + LIVE_KEY_TTL_MS);
      // Each method on its own sees it (the first call on a person is the one that must not trust the cache).
      expect(await replica.isDestroyed('ada')).toBe(true);
      expect(await replica.existingKey('bob')).toBeNull();
      expect(await replica.keyFor('cy')).toBeNull(); // and keyFor does not recreate it
      for (const id of people.slice(0, 3)) await expectDestroyed(replica, id);
      expect(await replica.keyFor('dee')).toEqual(keys.get('dee'));

      // Final: time passing does not bring a destroyed key back, here or in a restarted instance.
      jest.setSystemTime(Date.now() + 10 * LIVE_KEY_TTL_MS);
      await expectDestroyed(replica, 'cy');
      await expectDestroyed(open(), 'cy');
    });

    test('destroy is idempotent and final: a destroyed person never gets a new key', async () => {
      const first = open();
      expectKey(await first.keyFor('ada'));
      await first.destroy('ada');
      await first.destroy('ada');
      await expectDestroyed(first, 'ada');
      expect(await first.keyFor('ada')).toBeNull();
      await close(first);

      const again = open();
      await again.destroy('ada');
      const attempts = await Promise.all(Array.from({ length: 20 }, () => again.keyFor('ada')));
      expect(attempts).toEqual(Array(20).fill(null));
      await expectDestroyed(again, 'ada');
      await close(again);

      await expectDestroyed(open(), 'ada');
    });

    test('destroying again keeps when the key was first destroyed (what an export of the keys carries)', async () => {
      const store = open() as KeyStore & Partial<KeyArchive>;
      expectKey(await store.keyFor('dee'));
      const first = new Date();
      await store.destroy('dee');
      jest.setSystemTime(first.getTime() + 3_600_000);
      await store.destroy('dee');
      const records: KeyRecord[] = [];
      for await (const record of store.records!()) records.push(record);
      expect(records.find((r) => r.userId === 'dee')).toEqual({ userId: 'dee', key: null, destroyedAt: first });
    });

    test('destroying a person who never had a key leaves a tombstone: no key is ever made for them', async () => {
      const first = open();
      await first.destroy('ghost');
      await expectDestroyed(first, 'ghost');
      await close(first);
      await expectDestroyed(open(), 'ghost');
      expect(await open().isDestroyed('never-seen')).toBe(false);
    });

    test('20 concurrent keyFor calls for a new person get the same key, which is the one stored', async () => {
      const store = open();
      const keys = await Promise.all(Array.from({ length: 20 }, () => store.keyFor('ada')));
      const ada = expectKey(keys[0]);
      for (const key of keys) expect(key).toEqual(ada);
      await close(store);
      expect(await open().existingKey('ada')).toEqual(ada);
    });

    test('concurrent keyFor calls from two instances on the same storage get the same key', async () => {
      const one = open();
      const two = open();
      const keys = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).keyFor('ada')),
      );
      const ada = expectKey(keys[0]);
      for (const key of keys) expect(key).toEqual(ada);
      expect(await one.keyFor('ada')).toEqual(ada);
      expect(await two.keyFor('ada')).toEqual(ada);
      expect(await open().existingKey('ada')).toEqual(ada);
    });

    test('keyFor racing with destroy in another instance never leaves a key behind', async () => {
      fakeTheClock();
      const creator = open();
      const destroyer = open();
      await Promise.all([
        ...Array.from({ length: 10 }, () => creator.keyFor('ada')),
        destroyer.destroy('ada'),
        ...Array.from({ length: 10 }, () => creator.keyFor('ada')),
      ]);
      await expectDestroyed(destroyer, 'ada');
      await expectDestroyed(open(), 'ada');
      // The creator may have read a key made just before the destruction: it is trusted no longer than the TTL.
      jest.setSystemTime(Date.now() + LIVE_KEY_TTL_MS);
      await expectDestroyed(creator, 'ada');
    });
  });
}
