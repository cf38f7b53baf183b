import { randomUUID } from 'node:crypto';
import { ANY, NO_STREAM } from '@eventstore/db-client';
import { containerRuntimeMayExist, eventStoreDbUrl, TestServer } from '../testing/containers';
import { describeEventStoreConformance } from './event-store.conformance';
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
