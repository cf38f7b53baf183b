import { randomUUID } from 'node:crypto';
import {
  EventMetadata,
  EventStore,
  EventToAppend,
  RecordedEvent,
  WrongExpectedVersionError,
} from './event-store.port';

export interface EventStoreFixture {
  store: EventStore;
  /**
   * Opens a new store on the same data. The suite closes `store` before calling it and closes the
   * returned store itself.
   */
  reopen?: () => Promise<EventStore>;
  /** Removes what the fixture created; must tolerate an already closed store. */
  cleanup: () => Promise<void>;
  /**
   * True when the adapter numbers positions 1..n without gaps (SQLite). Otherwise positions are only checked to
   * be strictly increasing (EventStoreDB's are commit positions, i.e. byte offsets).
   */
  gapFreePositions?: boolean;
}

/**
 * The behaviour every EventStore adapter must have. The cases assume neither an empty store nor exclusive
 * use of it (a shared EventStoreDB may hold other events): streams are unique per run and positions are
 * checked relative to the head before each case.
 *
 * `create` is null (or resolves to null) when the adapter's backend is not available: the cases are then
 * skipped with a message rather than failed.
 */
export function describeEventStoreConformance(
  name: string,
  create: (() => Promise<EventStoreFixture | null>) | null,
): void {
  if (!create) {
    describe.skip(`EventStore conformance: ${name}`, () => {
      it(`skipped: ${name} is not available`, () => undefined);
    });
    // eslint-disable-next-line no-console
    console.warn(`${name} conformance skipped: set EVENTSTORE_URL or provide a container runtime`);
    return;
  }

  describe(`EventStore conformance: ${name}`, () => {
    const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    let counter = 0;
    /** A stream id unique to this run; the category is `category`. */
    const newStream = (category = 'conf') => `${category}-${run}x${++counter}`;

    let fixture: EventStoreFixture | null = null;
    let store: EventStore;
    let warned = false;

    beforeEach(async () => {
      fixture = await create();
      if (fixture) store = fixture.store;
      else if (!warned) {
        warned = true;
        // eslint-disable-next-line no-console
        console.warn(`${name} conformance skipped: set EVENTSTORE_URL or provide a container runtime`);
      }
    });
    afterEach(async () => {
      if (!fixture) return;
      await fixture.store.close();
      await fixture.cleanup();
    });

    /** Runs `body` only when the fixture exists (a runtime skip). */
    const test = (title: string, body: () => Promise<void>) =>
      it(title, async () => {
        if (fixture) await body();
      });

    test('appends to a new stream with expected version 0', async () => {
      const stream = newStream();
      const head = await store.headPosition();
      const result = await store.appendToStream(stream, [event('A'), event('B')], { expectedVersion: 0 });
      expect(result.nextVersion).toBe(2);
      expect(result.position).toBeGreaterThan(head);
      const events = await store.readStream(stream);
      expect(events.map((e) => e.type)).toEqual(['A', 'B']);
      expect(events[1].position).toBe(result.position);
      await expect(store.appendToStream(stream, [event('C')], { expectedVersion: 0 })).rejects.toBeInstanceOf(
        WrongExpectedVersionError,
      );
    });

    test('a wrong expected version throws a typed error and writes nothing', async () => {
      const stream = newStream();
      await store.appendToStream(stream, [event('A'), event('B')], { expectedVersion: 0 });
      const head = await store.headPosition();
      for (const expectedVersion of [1, 3]) {
        const error = await store
          .appendToStream(stream, [event('C')], { expectedVersion })
          .then(() => null, (err: unknown) => err);
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        const conflict = error as WrongExpectedVersionError;
        expect(conflict.streamId).toBe(stream);
        expect(conflict.expectedVersion).toBe(expectedVersion);
        expect(conflict.actualVersion).toBe(2);
      }
      const missing = newStream();
      const error = await store
        .appendToStream(missing, [event('A')], { expectedVersion: 1 })
        .then(() => null, (err: unknown) => err);
      expect(error).toBeInstanceOf(WrongExpectedVersionError);
      expect((error as WrongExpectedVersionError).actualVersion).toBe(0);

      expect(await store.readStream(stream)).toHaveLength(2);
      expect(await store.readStream(missing)).toEqual([]);
      expect(await store.headPosition()).toBe(head);
    });

    test("'any' appends to a new or an existing stream", async () => {
      const stream = newStream();
      expect((await store.appendToStream(stream, [event('A')], { expectedVersion: 'any' })).nextVersion).toBe(1);
      expect((await store.appendToStream(stream, [event('B')], { expectedVersion: 'any' })).nextVersion).toBe(2);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B']);
    });

    test('of 20 concurrent appends with the same expected version exactly one succeeds', async () => {
      const stream = newStream();
      await store.appendToStream(stream, [event('Created')], { expectedVersion: 0 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          store.appendToStream(stream, [event('Changed', { i })], { expectedVersion: 1 }),
        ),
      );
      const fulfilled = outcomes.filter((o) => o.status === 'fulfilled');
      const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(19);
      for (const r of rejected) expect(r.reason).toBeInstanceOf(WrongExpectedVersionError);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    test('readStream returns stream order with versions 1..n', async () => {
      const stream = newStream();
      await store.appendToStream(stream, [event('A'), event('B')], { expectedVersion: 0 });
      await store.appendToStream(newStream(), [event('Other')], { expectedVersion: 0 });
      await store.appendToStream(stream, [event('C')], { expectedVersion: 2 });
      await store.appendToStream(stream, [event('D'), event('E')], { expectedVersion: 3 });
      const events = await store.readStream(stream);
      expect(events.map((e) => e.type)).toEqual(['A', 'B', 'C', 'D', 'E']);
      expect(events.map((e) => e.streamVersion)).toEqual([1, 2, 3, 4, 5]);
      expect(events.every((e) => e.streamId === stream)).toBe(true);
      for (let i = 1; i < events.length; i++) expect(events[i].position).toBeGreaterThan(events[i - 1].position);
    });

    test('readStream after a version returns only the later events', async () => {
      const stream = newStream();
      await store.appendToStream(stream, [event('A'), event('B'), event('C')], { expectedVersion: 0 });
      expect((await store.readStream(stream, { afterVersion: 1 })).map((e) => [e.type, e.streamVersion])).toEqual([
        ['B', 2],
        ['C', 3],
      ]);
      expect(await store.readStream(stream, { afterVersion: 3 })).toEqual([]);
      expect(await store.readStream(newStream(), { afterVersion: 2 })).toEqual([]);
    });

    test('readStream of a missing stream is []', async () => {
      expect(await store.readStream(newStream())).toEqual([]);
    });

    test('readAll returns the global order across streams, paged by from/limit', async () => {
      const a = newStream();
      const b = newStream();
      const head = await store.headPosition();
      await store.appendToStream(a, [event('A1')], { expectedVersion: 0 });
      await store.appendToStream(b, [event('B1'), event('B2')], { expectedVersion: 0 });
      await store.appendToStream(a, [event('A2')], { expectedVersion: 1 });
      await store.appendToStream(b, [event('B3')], { expectedVersion: 2 });

      const ours = (events: RecordedEvent[]) => events.filter((e) => e.streamId === a || e.streamId === b);
      const all = await store.readAll({ from: head, limit: 1000 });
      expect(ours(all).map((e) => e.type)).toEqual(['A1', 'B1', 'B2', 'A2', 'B3']);
      expect(all.every((e) => e.position > head)).toBe(true);

      const paged: RecordedEvent[] = [];
      let from = head;
      for (;;) {
        const page = await store.readAll({ from, limit: 2 });
        expect(page.length).toBeLessThanOrEqual(2);
        if (page.length === 0) break;
        paged.push(...page);
        from = page[page.length - 1].position;
      }
      expect(paged).toEqual(all);
    });

    test('positions increase (consecutively where the adapter says so), and headPosition is the last one', async () => {
      const head = await store.headPosition();
      const stream = newStream();
      await store.appendToStream(stream, [event('A'), event('B'), event('C')], { expectedVersion: 0 });
      // A failed append must not burn positions.
      await store.appendToStream(stream, [event('X')], { expectedVersion: 0 }).catch(() => undefined);
      await store.appendToStream(newStream(), [event('D')], { expectedVersion: 0 });
      const events = await store.readAll({ from: head, limit: 1000 });
      expect(events.length).toBeGreaterThanOrEqual(4);
      if (fixture?.gapFreePositions) {
        events.forEach((e, i) => expect(e.position).toBe(head + 1 + i));
      } else {
        events.forEach((e, i) => expect(e.position).toBeGreaterThan(i === 0 ? head : events[i - 1].position));
      }
      expect(await store.headPosition()).toBe(events[events.length - 1].position);
    });

    test('an idempotent retry with the same event ids does not duplicate', async () => {
      const stream = newStream();
      const batch = [event('A'), event('B')];
      const first = await store.appendToStream(stream, batch, { expectedVersion: 0 });
      const retry = await store.appendToStream(stream, batch, { expectedVersion: 0 });
      expect(retry).toEqual(first);
      expect(await store.readStream(stream)).toHaveLength(2);

      // The same expected version with other events is a real conflict.
      await expect(store.appendToStream(stream, [event('C')], { expectedVersion: 0 })).rejects.toBeInstanceOf(
        WrongExpectedVersionError,
      );
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    test('subscribe catches up from a position, then receives live appends in order', async () => {
      const stream = newStream();
      const head = await store.headPosition();
      await store.appendToStream(stream, [event('A'), event('B'), event('C')], { expectedVersion: 0 });
      const controller = new AbortController();
      const next = ours(store.subscribe({ from: head, signal: controller.signal }), [stream]);
      try {
        expect((await next()).type).toBe('A');
        expect((await next()).type).toBe('B');
        expect((await next()).type).toBe('C');
        // Ask before the append: the subscription is waiting live.
        const pending = next();
        await store.appendToStream(stream, [event('D')], { expectedVersion: 3 });
        await store.appendToStream(stream, [event('E')], { expectedVersion: 4 });
        const d = await pending;
        const e = await next();
        expect([d.type, e.type]).toEqual(['D', 'E']);
        expect([d.streamVersion, e.streamVersion]).toEqual([4, 5]);
        expect(e.position).toBeGreaterThan(d.position);
      } finally {
        controller.abort();
      }
    });

    test('subscribe from a later position skips earlier events', async () => {
      const stream = newStream();
      await store.appendToStream(stream, [event('A'), event('B')], { expectedVersion: 0 });
      const [, b] = await store.readStream(stream);
      await store.appendToStream(stream, [event('C')], { expectedVersion: 2 });
      const controller = new AbortController();
      const next = ours(store.subscribe({ from: b.position, signal: controller.signal }), [stream]);
      try {
        expect((await next()).type).toBe('C');
      } finally {
        controller.abort();
      }
    });

    test('subscribe with types delivers only those types', async () => {
      const stream = newStream();
      const head = await store.headPosition();
      await store.appendToStream(stream, [event('A'), event('B'), event('A'), event('C')], { expectedVersion: 0 });
      const controller = new AbortController();
      const next = ours(store.subscribe({ from: head, types: ['A', 'C'], signal: controller.signal }), [stream]);
      try {
        const received = [await next(), await next(), await next()];
        expect(received.map((e) => [e.type, e.streamVersion])).toEqual([
          ['A', 1],
          ['A', 3],
          ['C', 4],
        ]);
        const pending = next();
        await store.appendToStream(stream, [event('B'), event('C')], { expectedVersion: 4 });
        expect((await pending).streamVersion).toBe(6);
      } finally {
        controller.abort();
      }
    });

    test('abort ends a subscription, also while it waits for events', async () => {
      const before = new AbortController();
      before.abort();
      const ended = await store.subscribe({ from: await store.headPosition(), signal: before.signal })
        [Symbol.asyncIterator]()
        .next();
      expect(ended.done).toBe(true);

      const controller = new AbortController();
      const iterator = store.subscribe({ from: await store.headPosition(), signal: controller.signal })[
        Symbol.asyncIterator
      ]();
      const waiting = iterator.next();
      setTimeout(() => controller.abort(), 20);
      expect((await waiting).done).toBe(true);
    });

    test('data survives a reopen', async () => {
      if (!fixture?.reopen) return;
      const stream = newStream();
      await store.appendToStream(stream, [event('A', { n: 1 }), event('B', { n: 2 })], { expectedVersion: 0 });
      const before = await store.readStream(stream);
      const head = await store.headPosition();
      await store.close();
      const reopened = await fixture.reopen();
      try {
        expect(await reopened.readStream(stream)).toEqual(before);
        expect(await reopened.headPosition()).toBe(head);
        const next = await reopened.appendToStream(stream, [event('C')], { expectedVersion: 2 });
        expect(next.nextVersion).toBe(3);
        if (fixture.gapFreePositions) expect(next.position).toBe(head + 1);
        else expect(next.position).toBeGreaterThan(head);
      } finally {
        await reopened.close();
      }
    });

    test('data and metadata round-trip exactly', async () => {
      const stream = newStream('ratings');
      const metadata: EventMetadata = {
        eventId: randomUUID(),
        schemaVersion: 3,
        correlationId: randomUUID(),
        causationId: randomUUID(),
        actorUserId: 'user-Ωé 42',
        occurredAt: '2024-02-29T23:59:59.123Z',
      };
      const data = {
        text: 'quotes " and \\ and emoji 😀 and \u0000',
        int: 42,
        float: -1.5e-7,
        zero: 0,
        flag: false,
        nothing: null,
        list: [1, 'two', { three: [3] }],
        nested: { deep: { deeper: { value: 'x' } } },
      };
      await store.appendToStream(stream, [{ type: 'RatingSubmitted', data, metadata }], { expectedVersion: 0 });
      const [recorded] = await store.readStream(stream);
      expect(recorded).toStrictEqual({
        streamId: stream,
        streamVersion: 1,
        position: recorded.position,
        type: 'RatingSubmitted',
        data,
        metadata,
      });
      const [viaAll] = await store.readAll({ from: recorded.position - 1, limit: 1 });
      expect(viaAll).toStrictEqual(recorded);
    });
  });
}

function event(type: string, data: Record<string, unknown> = {}): EventToAppend {
  return {
    type,
    data,
    metadata: {
      eventId: randomUUID(),
      schemaVersion: 1,
      correlationId: 'correlation',
      causationId: 'causation',
      actorUserId: 'system',
      occurredAt: new Date().toISOString(),
    },
  };
}

/** Pulls the next event of `streams` from a subscription, skipping events of others (a shared store). */
function ours(subscription: AsyncIterable<RecordedEvent>, streams: string[]): () => Promise<RecordedEvent> {
  const iterator = subscription[Symbol.asyncIterator]();
  return async () => {
    for (;;) {
      const result = await iterator.next();
      if (result.done) throw new Error('subscription ended');
      if (streams.includes(result.value.streamId)) return result.value;
    }
  };
}
