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
  type StreamMetadata,
} from '@eventstore/db-client';

/*
 * TEST SUPPORT ONLY (used by the specs; nothing in the app imports it): a simulated EventStoreDB behind the
 * parts of the gRPC client that the adapter uses, so that the adapter's own logic (paging, start positions,
 * idempotent retries, resubscription, truncation) is tested without a server.
 *
 * The simulation follows the documented server behaviour — commit positions are byte offsets, a read may only
 * start at a record boundary (else the server refuses it), forwards reads include their start and backwards
 * reads exclude it, subscriptions start after their position, system projections add `$>` link events after
 * each append, an idempotent retry succeeds without a position; stream metadata is a `$metadata` event in the
 * metastream `$$<stream>`, and its truncate-before (`$tb`, `truncateBefore` in the client) hides the stream's
 * earlier events from stream reads while `$all` still returns them until a scavenge deletes them — but it is
 * no substitute for the conformance suite against a real server.
 */

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

export interface SimRecord {
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

export class SimulatedEventStoreDb {
  /** The transaction log in order: what `$all` reads (scavenged records are gone from it). */
  readonly log: SimRecord[] = [];
  private nextPos = 1000n;
  private readonly streams = new Map<string, SimRecord[]>();
  /** Stream metadata as the client shows it (`truncateBefore`, custom keys), by stream. */
  private readonly metadata = new Map<string, StreamMetadata>();
  private readonly waiting = new Set<() => void>();
  private readonly live = new Set<Readable>();
  subscribeCalls = 0;
  scavenges = 0;

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

  /**
   * A scavenge: the events hidden by a stream's truncate-before are deleted from the log (so from `$all`).
   * (A real server leaves the chunk being written to alone until it is complete; here everything goes.)
   */
  scavenge(): number {
    this.scavenges++;
    let removed = 0;
    for (const [streamId, list] of this.streams) {
      const before = this.truncateBefore(streamId);
      for (const record of list) {
        if (record.revision >= before || record.kind !== 'event') continue;
        const at = this.log.indexOf(record);
        if (at !== -1) this.log.splice(at, 1);
        // What the stream keeps of it: its revision (numbering goes on), nothing of its content.
        Object.assign(record, { kind: 'other', data: null, metadata: null, type: '' });
        removed++;
      }
    }
    return removed;
  }

  client(): EventStoreDBClient {
    return {
      appendToStream: (streamId: string, events: EventData | EventData[], options: { expectedRevision?: AppendExpectedRevision } = {}) =>
        this.append(streamId, Array.isArray(events) ? events : [events], options.expectedRevision ?? ANY),
      readStream: (streamId: string, options: StreamReadOptions = {}) => this.readStream(streamId, options),
      readAll: (options: AllReadOptions = {}) => this.readAll(options),
      subscribeToAll: (options: { fromPosition?: ReadPosition; filter?: Filter } = {}) => this.subscribeToAll(options),
      getStreamMetadata: async (streamName: string) => {
        await new Promise((resolve) => setImmediate(resolve));
        const metadata = this.metadata.get(streamName);
        return metadata ? { streamName, metadata: structuredClone(metadata) } : { streamName };
      },
      setStreamMetadata: async (streamName: string, metadata: StreamMetadata) => {
        const copy = structuredClone(metadata);
        const result = await this.append(`$$${streamName}`, [{ id: randomUUID(), type: '$metadata', data: copy } as unknown as EventData], ANY);
        this.metadata.set(streamName, copy);
        return result;
      },
      dispose: async () => undefined,
    } as unknown as EventStoreDBClient;
  }

  private truncateBefore(streamId: string): bigint {
    const tb = this.metadata.get(streamId)?.truncateBefore;
    return typeof tb === 'number' && tb > 0 ? BigInt(tb) : 0n;
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
    if (!streamId.startsWith('$')) {
      setTimeout(() => {
        for (const e of events) this.write(`$ce-${streamId.split('-')[0]}`, '$>', e.id);
        this.notify();
      }, 1);
    }
    const position: Position = { commit: last!.pos, prepare: last!.pos };
    return { success: true, nextExpectedRevision: last!.revision, position };
  }

  private async *readStream(streamId: string, options: StreamReadOptions) {
    await new Promise((resolve) => setImmediate(resolve));
    const list = this.streams.get(streamId);
    if (!list || list.length === 0) throw new StreamNotFoundError(undefined, streamId);
    const forwards = options.direction !== 'backwards';
    const from = options.fromRevision;
    // Events before the truncate-before are gone for stream reads (whether or not scavenged yet).
    const truncated = this.truncateBefore(streamId);
    let records = (forwards ? list : [...list].reverse()).filter((r) => r.revision >= truncated);
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
    /** The position of the last record passed (a position, not an index: a scavenge shortens the log). */
    let after: bigint | null = null;
    let started = false;
    let hint = 0;
    const sim = this;
    const stream = new Readable({
      objectMode: true,
      highWaterMark: 1,
      read() {
        const pump = () => {
          if (stream.destroyed) return;
          if (!started) {
            try {
              if (from === 'start') after = -1n;
              else if (from === 'end') after = sim.nextPos - 1n;
              else {
                const index = sim.indexAt(from.commit); // throws inside a record
                after = index < sim.log.length ? from.commit : sim.nextPos - 1n; // after the start position
              }
              started = true;
            } catch (err) {
              stream.destroy(err as Error);
              return;
            }
          }
          // `hint`: where the last pump stopped in the log (moved back if a scavenge shortened it).
          let i = Math.min(hint, sim.log.length);
          while (i > 0 && sim.log[i - 1].pos > after!) i--;
          while (i < sim.log.length && sim.log[i].pos <= after!) i++;
          for (; i < sim.log.length; i++) {
            const record = sim.log[i];
            after = record.pos;
            if (record.kind !== 'event' || (regex && !regex.test(record.type))) continue;
            hint = i + 1;
            stream.push(sim.resolved(record));
            return;
          }
          hint = i;
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
