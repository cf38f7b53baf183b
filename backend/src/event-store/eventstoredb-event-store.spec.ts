import { randomUUID } from 'node:crypto';
import { ANY, NO_STREAM } from '@eventstore/db-client';
import { containerRuntimeMayExist, eventStoreDbUrl, TestServer } from '../testing/containers';
import { Decider, decideAndAppend, DomainEvent } from './decider';
import { describeEventStoreConformance } from './event-store.conformance';
import { copyEventId } from './event-store.port';
import {
  esdbEventId,
  EventStoreDbEventStore,
  JOY_EVENT_ID_NAMESPACE,
  toEsdbExpectedRevision,
  toStreamVersion,
  typesRegex,
  uuidV5,
  withKeepAlive,
} from './eventstoredb-event-store';
import { EventStoreDbStandIn } from './standin/server';
import { appendable } from '../testing/events';
import { waitUntil } from '../testing/wait';

// Starting a container (and pulling its image the first time) takes a while; the unit tests are instant.
jest.setTimeout(180_000);

/** One server for the whole file, started on first use. */
let server: Promise<TestServer | null> | undefined;
const getServer = () => (server ??= eventStoreDbUrl());
afterAll(async () => {
  const started = await server;
  await started?.stop();
});

// Streams are unique per run (the suite names them), so a shared EventStoreDB given by EVENTSTORE_URL works;
// they stay in its log (an event store is append-only). A container is thrown away after the file.
describeEventStoreConformance(
  'EventStoreDB',
  process.env.EVENTSTORE_URL || containerRuntimeMayExist()
    ? async () => {
        const started = await getServer();
        if (!started) return null;
        return {
          store: new EventStoreDbEventStore(started.url),
          reopen: async () => new EventStoreDbEventStore(started.url),
          cleanup: async () => undefined,
          gapFreePositions: false,
        };
      }
    : null,
);

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('EventStoreDbEventStore mappings (no server)', () => {
  it('maps the expected version (a count) to a 0-based revision', () => {
    expect(toEsdbExpectedRevision(0)).toBe(NO_STREAM);
    expect(toEsdbExpectedRevision(1)).toBe(0n);
    expect(toEsdbExpectedRevision(42)).toBe(41n);
    expect(toEsdbExpectedRevision('any')).toBe(ANY);
    for (const invalid of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => toEsdbExpectedRevision(invalid)).toThrow(RangeError);
    }
  });

  it('maps a current revision back to a stream version (a count)', () => {
    expect(toStreamVersion(NO_STREAM)).toBe(0);
    expect(toStreamVersion(undefined)).toBe(0);
    expect(toStreamVersion(-1n)).toBe(0);
    expect(toStreamVersion(0n)).toBe(1);
    expect(toStreamVersion(41n)).toBe(42);
    expect(() => toStreamVersion(2n ** 60n)).toThrow(RangeError);
  });

  it('round-trips: the revision of an expected version maps back to it', () => {
    for (const version of [0, 1, 2, 10, 1_000_000]) {
      const revision = toEsdbExpectedRevision(version);
      expect(toStreamVersion(revision as bigint | typeof NO_STREAM)).toBe(version);
    }
  });

  it('passes UUID event ids through, lower-cased', () => {
    const id = randomUUID();
    expect(esdbEventId(id)).toBe(id);
    expect(esdbEventId(id.toUpperCase())).toBe(id);
  });

  it('derives a deterministic version-5 UUID from any other event id', () => {
    const derived = esdbEventId('rating-42:submitted');
    expect(derived).toMatch(UUID_V5);
    expect(esdbEventId('rating-42:submitted')).toBe(derived);
    expect(esdbEventId('rating-42:submitted ')).not.toBe(derived);
    expect(esdbEventId('')).toMatch(UUID_V5);
    expect(derived).toBe(uuidV5('rating-42:submitted', JOY_EVENT_ID_NAMESPACE));
  });

  it('computes RFC 4122 version-5 UUIDs (the RFC namespace example)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('adds the keepalive settings to a connection string that does not set them', () => {
    expect(withKeepAlive('esdb://localhost:2113?tls=false', 10_000, 10_000)).toBe(
      'esdb://localhost:2113?tls=false&keepAliveInterval=10000&keepAliveTimeout=10000',
    );
    expect(withKeepAlive('esdb://localhost:2113/', 5_000, 7_000)).toBe(
      'esdb://localhost:2113?keepAliveInterval=5000&keepAliveTimeout=7000',
    );
    expect(withKeepAlive('esdb://h:2113?keepAliveInterval=1000&tls=false', 10_000, 10_000)).toBe(
      'esdb://h:2113?keepAliveInterval=1000&tls=false&keepAliveTimeout=10000',
    );
    const both = 'esdb://h:2113?tls=false&keep-alive-interval=1&KeepAliveTimeout=2';
    expect(withKeepAlive(both, 10_000, 10_000)).toBe(both);
  });

  it('filters subscriptions by exactly the given event types', () => {
    const regex = new RegExp(typesRegex(['A', 'Rating.Submitted', 'x+y']));
    expect(['A', 'Rating.Submitted', 'x+y'].every((t) => regex.test(t))).toBe(true);
    expect(['AB', 'BA', 'RatingXSubmitted', 'xxy', '$>', ''].some((t) => regex.test(t))).toBe(false);
    expect(new RegExp(typesRegex([])).test('A')).toBe(false);
  });

  it('needs no server until used: construction, an aborted subscription and close are local', async () => {
    const store = new EventStoreDbEventStore('esdb://127.0.0.1:1?tls=false');
    const controller = new AbortController();
    controller.abort();
    const ended = await store.subscribe({ from: 0, signal: controller.signal })[Symbol.asyncIterator]().next();
    expect(ended.done).toBe(true);
    expect(await store.readAll({ from: 0, limit: 0 })).toEqual([]);
    await store.close();
    await store.close(); // idempotent
    await expect(store.readStream('s-1')).rejects.toThrow(/closed/);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The adapter through the official client on the wire, against the gRPC stand-in (standin/server.ts: EventStoreDB's
// protocol and the behaviour the adapter relies on, in memory; the conformance suite above runs against a real
// server where one is available).

let standIn: EventStoreDbStandIn;
beforeAll(async () => {
  standIn = await EventStoreDbStandIn.start();
});
afterAll(async () => {
  await standIn.stop();
});

describeEventStoreConformance('EventStoreDB stand-in (gRPC)', async () => ({
  store: new EventStoreDbEventStore(standIn.url),
  reopen: async () => new EventStoreDbEventStore(standIn.url),
  cleanup: async () => undefined,
  gapFreePositions: false,
}));

describe('EventStoreDbEventStore on the stand-in', () => {
  const event = appendable;

  let store: EventStoreDbEventStore;
  beforeEach(() => {
    store = new EventStoreDbEventStore(standIn.url);
  });
  afterEach(() => store.close());

  it('resubscribes after a drop from the last delivered event, without duplicates or gaps', async () => {
    const stream = `drop-${randomUUID()}`;
    const head = await store.headPosition();
    await store.appendToStream(stream, [event('A'), event('B'), event('C')], { expectedVersion: 0 });
    const controller = new AbortController();
    const iterator = store.subscribe({ from: head, signal: controller.signal })[Symbol.asyncIterator]();
    const next = async () => {
      for (;;) {
        const result = await iterator.next();
        if (result.done) throw new Error('ended');
        if (result.value.streamId === stream) return result.value.type;
      }
    };
    try {
      expect(await next()).toBe('A');
      expect(standIn.dropSubscriptions()).toBeGreaterThan(0);
      expect(await next()).toBe('B');
      expect(await next()).toBe('C');
      const pending = next();
      await waitUntil(() => standIn.liveSubscriptions > 0); // resubscribed
      expect(standIn.dropSubscriptions()).toBeGreaterThan(0);
      await store.appendToStream(stream, [event('D')], { expectedVersion: 3 });
      expect(await pending).toBe('D');
    } finally {
      controller.abort();
    }
  });

  it('a retried append with non-UUID event ids returns the original result', async () => {
    const stream = `ids-${randomUUID()}`;
    const batch = [event('A', 'command-1:0'), event('B', 'command-1:1')];
    const first = await store.appendToStream(stream, batch, { expectedVersion: 0 });
    await store.appendToStream(stream, [event('C')], { expectedVersion: 2 });
    expect(await store.appendToStream(stream, batch, { expectedVersion: 0 })).toEqual(first);
    expect(await store.appendToStream(stream, batch, { expectedVersion: 'any' })).toEqual(first);
    expect((await store.readStream(stream)).map((e) => e.metadata.eventId).slice(0, 2)).toEqual([
      'command-1:0',
      'command-1:1',
    ]);
  });

  it('an empty append checks the expected version and writes nothing', async () => {
    const stream = `empty-${randomUUID()}`;
    expect(await store.appendToStream(stream, [], { expectedVersion: 0 })).toEqual({ nextVersion: 0, position: 0 });
    const written = await store.appendToStream(stream, [event('A')], { expectedVersion: 0 });
    expect(await store.appendToStream(stream, [], { expectedVersion: 1 })).toEqual(written);
    await expect(store.appendToStream(stream, [], { expectedVersion: 0 })).rejects.toMatchObject({ actualVersion: 1 });
  });

  it('readAll and subscribe accept any number as a position, not only record boundaries', async () => {
    for (let i = 0; i < 20; i++) {
      await store.appendToStream(`fill-${randomUUID()}`, [event('F')], { expectedVersion: 0 });
    }
    const stream = `mid-${randomUUID()}`;
    await store.appendToStream(stream, [event('A'), event('B'), event('C')], { expectedVersion: 0 });
    const [a, b, c] = await store.readStream(stream);
    // Near the end of the log (scanned backwards) and near its start (scanned forwards).
    expect(await store.readAll({ from: b.position - 1, limit: 1 })).toEqual([b]);
    expect(await store.readAll({ from: b.position + 1, limit: 1 })).toEqual([c]);
    const all = await store.readAll({ from: 0, limit: 100_000 });
    expect(all.some((e) => e.type.startsWith('$'))).toBe(false);
    expect(await store.readAll({ from: 1, limit: 1 })).toEqual([all[0]]);
    expect(await store.readAll({ from: all[0].position + 1, limit: 1 })).toEqual([all[1]]);
    expect(await store.readAll({ from: Number(standIn.log.end) + 5, limit: 10 })).toEqual([]);

    const controller = new AbortController();
    const iterator = store.subscribe({ from: a.position + 1, signal: controller.signal })[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual(b);
    controller.abort();
    expect((await iterator.next()).done).toBe(true);
  });

  it('headPosition skips the system events written after the last event', async () => {
    const written = await store.appendToStream(`head-${randomUUID()}`, [event('A')], { expectedVersion: 0 });
    const lastType = () => standIn.log.records.filter((r) => r.kind === 'event').at(-1)?.type;
    await waitUntil(() => lastType() === '$>'); // the stand-in's system projection writes its link after the event
    expect(await store.headPosition()).toBe(written.position);
  });

  it('a truncated stream reads from its truncate-before, versions unchanged; appends go on after its last event', async () => {
    const stream = `trunc-${randomUUID()}`;
    await store.appendToStream(stream, [event('A'), event('B'), event('C')], { expectedVersion: 0 });
    await store.truncateBefore(stream, 3);
    expect(await store.streamMetadata(stream)).toEqual({ truncateBefore: 2 }); // a revision
    const read = await store.readStream(stream);
    expect(read.map((e) => [e.type, e.streamVersion])).toEqual([['C', 3]]);
    expect(await store.readStream(stream, { afterVersion: 1 })).toEqual(read); // below the truncation: from it
    expect(await store.readStream(stream, { afterVersion: 3 })).toEqual([]);
    // The stream's version is its last event's (3), not the number of events read (1).
    await expect(store.appendToStream(stream, [event('D')], { expectedVersion: 1 })).rejects.toMatchObject({ actualVersion: 3 });
    const written = await store.appendToStream(stream, [event('D')], { expectedVersion: 3 });
    expect(written.nextVersion).toBe(4);
    expect(await store.appendToStream(stream, [], { expectedVersion: 4 })).toEqual(written);

    // Never moved back, and the other metadata is kept.
    await store.setStreamMetadata(stream, { truncateBefore: 2, owner: 'joy' });
    await store.truncateBefore(stream, 2);
    expect(await store.streamMetadata(stream)).toEqual({ truncateBefore: 2, owner: 'joy' });
    await store.truncateBefore(stream, 4);
    expect(await store.streamMetadata(stream)).toEqual({ truncateBefore: 3, owner: 'joy' });
    await expect(store.truncateBefore(stream, 0)).rejects.toThrow(RangeError);

    // $all keeps the truncated events until a scavenge deletes them; the metadata events never show.
    const inAll = async () => (await store.readAll({ from: 0, limit: 100_000 })).filter((e) => e.streamId === stream).map((e) => e.type);
    expect(await inAll()).toEqual(['A', 'B', 'C', 'D']);
    expect((await store.readAll({ from: 0, limit: 100_000 })).some((e) => e.streamId.startsWith('$'))).toBe(false);
    standIn.scavenge();
    expect(await inAll()).toEqual(['D']);
    expect((await store.readStream(stream)).map((e) => [e.type, e.streamVersion])).toEqual([['D', 4]]);
    expect((await store.appendToStream(stream, [event('E')], { expectedVersion: 4 })).nextVersion).toBe(5);
  });

  it('truncateBefore from several processes at once: the highest truncation wins, the other metadata stays', async () => {
    const stream = `race-${randomUUID()}`;
    await store.appendToStream(stream, Array.from({ length: 8 }, (_, i) => event(`E${i}`)), { expectedVersion: 0 });
    await store.setStreamMetadata(stream, { owner: 'joy' });
    const others = [new EventStoreDbEventStore(standIn.url), new EventStoreDbEventStore(standIn.url)];
    try {
      // Each reads the metadata, then writes it with its own truncation: a write based on a stale read must not win.
      await Promise.all([2, 7, 3, 5, 6, 4].map((version, i) => [store, ...others][i % 3].truncateBefore(stream, version)));
      expect(await store.streamMetadata(stream)).toEqual({ owner: 'joy', truncateBefore: 6 });
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['E6', 'E7']);
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
  });

  it('decideAndAppend on a rewritten, truncated stream folds the copies once and expects its last version', async () => {
    // Each decision records the total it was decided on: a fold that counts an event twice shows.
    type Added = DomainEvent<'Added', { n: number; before: number }>;
    const total: Decider<number, { n: number }, Added> = {
      initialState: 0,
      evolve: (sum, e) => sum + e.data.n,
      decide: ({ n }, sum) => [{ type: 'Added', data: { n, before: sum } }],
    };
    const stream = `decide-${randomUUID()}`;
    const added = (n: number, eventId: string) => ({ ...event('Added', eventId), data: { n } });
    await store.appendToStream(stream, [added(1, `${stream}:1`), added(2, `${stream}:2`)], { expectedVersion: 0 });
    expect((await decideAndAppend(store, stream, total, { n: 4 }, { actorUserId: 'u' })).append?.nextVersion).toBe(3);
    // Another process rewrites the stream as copies of its events (`rekey-<id>`) and truncates it before them.
    const copies = (await store.readStream(stream)).map((e) => ({ ...e, metadata: { ...e.metadata, eventId: copyEventId(e.metadata.eventId) } }));
    await store.appendToStream(stream, copies, { expectedVersion: 3 });
    await store.truncateBefore(stream, 4);
    // The stale fold (version 3) meets the copies and folds again from the start; a fresh one reads only them.
    const fresh = new EventStoreDbEventStore(standIn.url);
    expect((await decideAndAppend(store, stream, total, { n: 8 }, { actorUserId: 'u' })).append?.nextVersion).toBe(7);
    expect((await decideAndAppend(fresh, stream, total, { n: 16 }, { actorUserId: 'u' })).append?.nextVersion).toBe(8);
    expect((await store.readStream(stream)).map((e) => [e.data.n, e.data.before, e.streamVersion])).toEqual([
      [1, undefined, 4],
      [2, undefined, 5],
      [4, 3, 6],
      [8, 7, 7],
      [16, 15, 8],
    ]);
    await fresh.close();
  });

  it('close ends live subscriptions', async () => {
    const live = standIn.liveSubscriptions;
    const waiting = store.subscribe({ from: await store.headPosition() })[Symbol.asyncIterator]().next();
    await waitUntil(() => standIn.liveSubscriptions > live);
    await store.close();
    expect((await waiting).done).toBe(true);
  });
});
