import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';

/*
 * The stand-in's storage: EventStoreDB's transaction log, in memory, with the behaviour a client can see.
 * - Positions are byte offsets: strictly increasing, not consecutive; the log also holds records that are not
 *   events (commits, epochs), so most numbers are not a record boundary, and a read of `$all` may only start at
 *   one (`InvalidPositionError` otherwise). Every event has its own record: commit = prepare position.
 * - Revisions count from 0 per stream; an append is checked against the expected revision, and an append of
 *   event ids already there at that revision (or, with `any`, anywhere) is an idempotent success that writes
 *   nothing and has no position.
 * - A stream's metadata is the last `$metadata` event of its metastream `$$<stream>`; its truncate-before `$tb`
 *   hides the earlier events from stream reads, while `$all` keeps them until a scavenge deletes them.
 * - The system projections write a `$>` link to `$ce-<category>` shortly after each append (system events).
 */

export interface LogRecord {
  position: bigint;
  /** 'other' stands for the log records that are not events (commits, epochs...). */
  kind: 'event' | 'other';
  streamId: string;
  revision: bigint;
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  metadata: Uint8Array;
  /** .NET ticks (100 ns since 0001-01-01), as the server sends them. */
  created: bigint;
}

export interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  metadata: Uint8Array;
}

/** `any`, `no_stream`, `stream_exists`, or the revision of the stream's last event. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export type AppendOutcome =
  | { ok: true; revision: bigint; position: bigint | null }
  | { ok: false; current: bigint | null };

export class InvalidPositionError extends Error {
  constructor(position: bigint) {
    super(`Invalid position ${position}: not the position of a record`);
  }
}

const FIRST_POSITION = 1000n;
/** Ticks between 0001-01-01 and 1970-01-01. */
const EPOCH_TICKS = 621_355_968_000_000_000n;
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

export class InMemoryLog {
  /** The log in order: what `$all` reads (scavenged records are gone from it). */
  readonly records: LogRecord[] = [];
  /** Per stream, its event records by revision (a scavenged one stays, emptied, so numbering goes on). */
  private readonly streams = new Map<string, LogRecord[]>();
  private next = FIRST_POSITION;
  /** Positions of scavenged records: still boundaries a reader may start at, though nothing is there now. */
  private readonly scavenged = new Set<bigint>();
  /** 'appended' after every write (subscriptions wake up on it). */
  readonly events = new EventEmitter().setMaxListeners(0);

  constructor() {
    this.other();
    this.write('$stats-127.0.0.1:2113', { id: randomUUID(), type: '$statsCollection', contentType: 'application/json', data: json({}), metadata: new Uint8Array() });
    this.other();
  }

  /** The position after the last record (where the next one will be written). */
  get end(): bigint {
    return this.next;
  }

  append(streamId: string, expected: ExpectedRevision, proposed: readonly ProposedEvent[]): AppendOutcome {
    const list = this.streams.get(streamId) ?? [];
    const current = list.length === 0 ? null : BigInt(list.length - 1);
    const ids = proposed.map((e) => e.id);
    const sameAt = (at: number) => ids.length > 0 && at + ids.length <= list.length && ids.every((id, i) => list[at + i].id === id);
    const idempotent = (at: number): AppendOutcome => ({ ok: true, revision: BigInt(at + ids.length - 1), position: null });
    if (expected === 'any') {
      const at = ids.length > 0 ? list.findIndex((r) => r.id === ids[0]) : -1;
      if (at !== -1 && sameAt(at)) return idempotent(at);
    } else if (expected === 'stream_exists') {
      if (current === null) return { ok: false, current };
    } else {
      const count = expected === 'no_stream' ? 0 : Number(expected) + 1;
      if (count !== list.length) {
        if (count < list.length && sameAt(count)) return idempotent(count);
        return { ok: false, current };
      }
    }
    if (proposed.length === 0) return { ok: true, revision: current ?? -1n, position: null };
    const written = proposed.map((event) => this.write(streamId, event));
    this.other();
    this.events.emit('appended');
    if (!streamId.startsWith('$')) setImmediate(() => this.linkToCategory(streamId, written));
    const last = written[written.length - 1];
    return { ok: true, revision: last.revision, position: last.position };
  }

  /** The events of a stream visible to a stream read (from its truncate-before on); null when it has none. */
  streamEvents(streamId: string): LogRecord[] | null {
    const list = this.streams.get(streamId);
    if (!list || list.length === 0) return null;
    const truncated = this.truncateBefore(streamId);
    return list.filter((r) => r.revision >= truncated && r.kind === 'event');
  }

  /** The index in `records` of the first record at or after `position`; throws inside a record. */
  indexAt(position: bigint): number {
    if (position >= this.next) return this.records.length;
    let low = 0;
    let high = this.records.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.records[mid].position < position) low = mid + 1;
      else high = mid;
    }
    // A scavenged record's position is still a boundary; anything else between two records is not.
    if (low < this.records.length && this.records[low].position === position) return low;
    if (this.scavenged.has(position)) return low;
    throw new InvalidPositionError(position);
  }

  /** The index in `records` of the first record after `position` (any number). */
  indexAfter(position: bigint): number {
    let low = 0;
    let high = this.records.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.records[mid].position <= position) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The stream's truncate-before (`$tb` of its last metadata event), 0 when none. */
  truncateBefore(streamId: string): bigint {
    const meta = this.streams.get(`$$${streamId}`);
    const last = meta?.[meta.length - 1];
    if (!last || last.kind !== 'event') return 0n;
    try {
      const tb = (JSON.parse(new TextDecoder().decode(last.data)) as { $tb?: unknown }).$tb;
      return typeof tb === 'number' && tb > 0 ? BigInt(tb) : 0n;
    } catch {
      return 0n;
    }
  }

  /** A scavenge: the events hidden by their stream's truncate-before are deleted from the log. */
  scavenge(): number {
    let removed = 0;
    for (const [streamId, list] of this.streams) {
      const before = this.truncateBefore(streamId);
      for (const record of list) {
        if (record.revision >= before || record.kind !== 'event') continue;
        const at = this.records.indexOf(record);
        if (at !== -1) this.records.splice(at, 1);
        this.scavenged.add(record.position);
        Object.assign(record, { kind: 'other', type: '', data: new Uint8Array(), metadata: new Uint8Array() });
        removed++;
      }
    }
    return removed;
  }

  private write(streamId: string, event: ProposedEvent): LogRecord {
    const list = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, list);
    const created = BigInt(Date.now()) * 10_000n + EPOCH_TICKS;
    const record: LogRecord = { position: this.next, kind: 'event', streamId, revision: BigInt(list.length), created, ...event };
    this.next += BigInt(96 + streamId.length + event.type.length + event.data.length + event.metadata.length);
    list.push(record);
    this.records.push(record);
    return record;
  }

  private other(): void {
    this.records.push({
      position: this.next,
      kind: 'other',
      streamId: '',
      revision: -1n,
      id: '',
      type: '',
      contentType: '',
      data: new Uint8Array(),
      metadata: new Uint8Array(),
      created: 0n,
    });
    this.next += 37n;
  }

  private linkToCategory(streamId: string, written: readonly LogRecord[]): void {
    const category = `$ce-${streamId.split('-')[0]}`;
    for (const record of written) {
      const link = new TextEncoder().encode(`${record.revision}@${streamId}`);
      this.write(category, { id: randomUUID(), type: '$>', contentType: 'application/octet-stream', data: link, metadata: new Uint8Array() });
    }
    this.events.emit('appended');
  }
}
