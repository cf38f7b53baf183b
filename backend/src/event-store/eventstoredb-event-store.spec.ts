import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  ANY,
  NO_STREAM,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  type AppendExpectedRevision,
  type EventData,
  type EventStoreDBClient,
  type Filter,
  type Position,
  type ReadPosition,
  type ReadRevision,
} from '@eventstore/db-client';
import { containerRuntimeMayExist, eventStoreDbUrl, TestServer } from '../testing/containers';
import { describeEventStoreConformance } from './event-store.conformance';
import { EventToAppend } from './event-store.port';
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

// ---------------------------------------------------------------------------------------------------------
// The adapter's own logic (paging, start positions, idempotent retries, resubscription) against a simulated
// EventStoreDB. The simulation follows the documented server behaviour — commit positions are byte offsets,
// a read may only start at a record boundary (else the server refuses it), forwards reads include their start
// and backwards reads exclude it, subscriptions start after their position, system projections add `$>` link
// events after each append, an idempotent retry succeeds without a position — but it is no substitute for
// the conformance suite against a real server above.

interface StreamReadOptions {
  direction?: string;
  fromRevision?: ReadRevision;
  maxCount?: number;
}

interface AllReadOptions {
  direction?: string;
  fromPosition?: ReadPosition;
  maxCount?: number;
}

interface SimRecord {
  pos: bigint;
  /** 'other' stands for the log records that are not events (commits, epochs...). */
  kind: 'event' | 'other';
  streamId: string;
  revision: bigint;
  id: string;
  type: string;
  data: unknown;
  metadata: unknown;
}

class SimulatedEventStoreDb {
  readonly log: SimRecord[] = [];
  private nextPos = 1000n;
  private readonly streams = new Map<string, SimRecord[]>();
  private readonly waiting = new Set<() => void>();
  private readonly live = new Set<Readable>();
  subscribeCalls = 0;

  constructor() {
    this.other();
    this.write('$stats-1', '$statsCollection', {});
  }

  get end(): bigint {
    return this.nextPos;
  }

  /** Drops every live subscription, as a lost connection does. */
  dropSubscriptions(): void {
    for (const stream of [...this.live]) stream.destroy(new UnavailableError(undefined, 'connection lost'));
  }

  client(): EventStoreDBClient {
    return {
      appendToStream: (streamId: string, events: EventData[], options: { expectedRevision: AppendExpectedRevision }) =>
        this.append(streamId, events, options.expectedRevision),
      readStream: (streamId: string, options: StreamReadOptions = {}) => this.readStream(streamId, options),
      readAll: (options: AllReadOptions = {}) => this.readAll(options),
      subscribeToAll: (options: { fromPosition?: ReadPosition; filter?: Filter } = {}) => this.subscribeToAll(options),
      dispose: async () => undefined,
    } as unknown as EventStoreDBClient;
  }

  private other(): void {
    const record = { pos: this.nextPos, streamId: '', revision: 0n, id: '', type: '', data: null, metadata: null };
    this.log.push({ ...record, kind: 'other' });
    this.nextPos += 37n;
  }

  private write(
    streamId: string,
    type: string,
    data: unknown,
    id: string = randomUUID(),
    metadata?: unknown,
  ): SimRecord {
    const list = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, list);
    const revision = BigInt(list.length);
    const record: SimRecord = { pos: this.nextPos, kind: 'event', streamId, revision, id, type, data, metadata };
    this.nextPos += BigInt(80 + JSON.stringify(data ?? null).length);
    list.push(record);
    this.log.push(record);
    return record;
  }

  private notify(): void {
    for (const wake of [...this.waiting]) wake();
  }

  private resolved(record: SimRecord) {
    const position: Position = { commit: record.pos, prepare: record.pos };
    const { streamId, id, revision, type, data, metadata } = record;
    const event = { streamId, id, revision, type, data, metadata, isJson: true, created: new Date(), position };
    return { event, commitPosition: record.pos };
  }

  /** The index of the record at `pos`; the server refuses a position inside a record. */
  private indexAt(pos: bigint): number {
    if (pos >= this.nextPos) return this.log.length;
    const index = this.log.findIndex((r) => r.pos === pos);
    if (index === -1) throw new Error('Invalid position');
    return index;
  }

  private async append(streamId: string, events: EventData[], expected: AppendExpectedRevision) {
    await new Promise((resolve) => setImmediate(resolve));
    const list = this.streams.get(streamId) ?? [];
    const ids = events.map((e) => e.id);
    const sameAt = (at: number) => at + ids.length <= list.length && ids.every((id, i) => list[at + i].id === id);
    const idempotent = (at: number) => ({
      success: true,
      nextExpectedRevision: BigInt(at + ids.length - 1),
      position: undefined, // the server wrote nothing
    });
    if (expected === ANY) {
      const at = list.findIndex((r) => r.id === ids[0]);
      if (at !== -1 && sameAt(at)) return idempotent(at);
    } else {
      const count = expected === NO_STREAM ? 0 : Number(expected) + 1;
      if (count !== list.length) {
        if (count < list.length && sameAt(count)) return idempotent(count);
        const current = list.length === 0 ? NO_STREAM : BigInt(list.length - 1);
        throw new EsdbWrongExpectedVersionError(undefined, { streamName: streamId, expected, current });
      }
    }
    let last: SimRecord | undefined;
    for (const e of events) {
      const copy = JSON.parse(JSON.stringify({ data: e.data, metadata: e.metadata })) as Record<string, unknown>;
      last = this.write(streamId, e.type, copy.data, e.id, copy.metadata);
    }
    this.other();
    this.notify();
    setTimeout(() => {
      for (const e of events) this.write(`$ce-${streamId.split('-')[0]}`, '$>', e.id);
      this.notify();
    }, 1);
    const position: Position = { commit: last!.pos, prepare: last!.pos };
    return { success: true, nextExpectedRevision: last!.revision, position };
  }

  private async *readStream(streamId: string, options: StreamReadOptions) {
    await new Promise((resolve) => setImmediate(resolve));
    const list = this.streams.get(streamId);
    if (!list || list.length === 0) throw new StreamNotFoundError(undefined, streamId);
    const forwards = options.direction !== 'backwards';
    const from = options.fromRevision;
    let records = forwards ? list : [...list].reverse();
    if (typeof from === 'bigint') records = records.filter((r) => (forwards ? r.revision >= from : r.revision <= from));
    for (const record of records.slice(0, options.maxCount ?? Infinity)) yield this.resolved(record);
  }

  private async *readAll(options: AllReadOptions) {
    await new Promise((resolve) => setImmediate(resolve));
    const from = options.fromPosition ?? 'start';
    const forwards = options.direction !== 'backwards';
    const index =
      from === 'start' ? 0 : from === 'end' ? this.log.length : this.indexAt(from.commit); // throws inside a record
    const records = forwards ? this.log.slice(index) : this.log.slice(0, index).reverse();
    const events = records.filter((r) => r.kind === 'event').slice(0, options.maxCount ?? Infinity);
    for (const record of events) yield this.resolved(record);
  }

  private subscribeToAll(options: { fromPosition?: ReadPosition; filter?: Filter }) {
    this.subscribeCalls++;
    const from = options.fromPosition ?? 'start';
    const regex = options.filter && 'regex' in options.filter ? new RegExp(options.filter.regex) : null;
    let cursor = -1;
    const sim = this;
    const stream = new Readable({
      objectMode: true,
      highWaterMark: 1,
      read() {
        const pump = () => {
          if (stream.destroyed) return;
          if (cursor === -1) {
            try {
              if (from === 'start') cursor = 0;
              else if (from === 'end') cursor = sim.log.length;
              else {
                const index = sim.indexAt(from.commit);
                cursor = index < sim.log.length ? index + 1 : index; // after the start position
              }
            } catch (err) {
              stream.destroy(err as Error);
              return;
            }
          }
          while (cursor < sim.log.length) {
            const record = sim.log[cursor++];
            if (record.kind !== 'event' || (regex && !regex.test(record.type))) continue;
            stream.push(sim.resolved(record));
            return;
          }
          const wake = () => {
            sim.waiting.delete(wake);
            setImmediate(pump);
          };
          sim.waiting.add(wake);
        };
        setImmediate(pump);
      },
    });
    Object.assign(stream, { unsubscribe: async () => void stream.destroy() });
    this.live.add(stream);
    stream.on('close', () => this.live.delete(stream));
    return stream;
  }
}

const simulated = new SimulatedEventStoreDb();

describeEventStoreConformance('simulated EventStoreDB', async () => ({
  store: new EventStoreDbEventStore(simulated.client()),
  reopen: async () => new EventStoreDbEventStore(simulated.client()),
  cleanup: async () => undefined,
  gapFreePositions: false,
}));

describe('EventStoreDbEventStore on the simulated EventStoreDB', () => {
  const event = (type: string, eventId: string = randomUUID()): EventToAppend => ({
    type,
    data: { type },
    metadata: {
      eventId,
      schemaVersion: 1,
      correlationId: 'c',
      causationId: 'c',
      actorUserId: 'system',
      occurredAt: new Date().toISOString(),
    },
  });
  let store: EventStoreDbEventStore;
  beforeEach(() => {
    store = new EventStoreDbEventStore(simulated.client());
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
      const subscribed = simulated.subscribeCalls;
      simulated.dropSubscriptions();
      expect(await next()).toBe('B');
      expect(await next()).toBe('C');
      expect(simulated.subscribeCalls).toBeGreaterThan(subscribed);
      const pending = next();
      simulated.dropSubscriptions();
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
    expect(await store.readAll({ from: Number(simulated.end) + 5, limit: 10 })).toEqual([]);

    const controller = new AbortController();
    const iterator = store.subscribe({ from: a.position + 1, signal: controller.signal })[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual(b);
    controller.abort();
    expect((await iterator.next()).done).toBe(true);
  });

  it('headPosition skips the system events written after the last event', async () => {
    const written = await store.appendToStream(`head-${randomUUID()}`, [event('A')], { expectedVersion: 0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(simulated.log[simulated.log.length - 1].type).toBe('$>');
    expect(await store.headPosition()).toBe(written.position);
  });

  it('close ends live subscriptions', async () => {
    const waiting = store.subscribe({ from: await store.headPosition() })[Symbol.asyncIterator]().next();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await store.close();
    expect((await waiting).done).toBe(true);
  });
});
