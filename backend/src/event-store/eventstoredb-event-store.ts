import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type CurrentRevision,
  type JSONType,
  type Position,
  type ReadAllOptions,
  type ReadPosition,
  type StreamMetadata,
} from '@eventstore/db-client';
import {
  AppendResult,
  EventMetadata,
  EventStore,
  EventToAppend,
  ExpectedVersion,
  RecordedEvent,
  SubscribeOptions,
  WrongExpectedVersionError,
} from './event-store.port';

/**
 * Keepalive defaults, added to the connection string unless it sets its own `keepAliveInterval` /
 * `keepAliveTimeout`: a ping every 10 s on an idle HTTP/2 connection, and the connection is closed (and the
 * subscriptions on it dropped, then resumed by `subscribe`) when a ping is not acknowledged within 10 s. They
 * are the client's own defaults, set explicitly so that they are visible and cannot silently change.
 */
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 10_000;
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 10_000;

/** Backoff between resubscriptions after a dropped subscription: doubles from the first to the last. */
const RESUBSCRIBE_MIN_MS = 100;
const RESUBSCRIBE_MAX_MS = 5_000;
/** Records read per request when paging through `$all`. */
const PAGE_MAX = 1_000;
/** Records read per request when looking for a valid start position (see `startAtOrBefore`). */
const SCAN_PAGE = 500;

export interface EventStoreDbEventStoreOptions {
  /** Overrides DEFAULT_KEEPALIVE_INTERVAL_MS (unused when the connection string sets keepAliveInterval). */
  keepAliveIntervalMs?: number;
  /** Overrides DEFAULT_KEEPALIVE_TIMEOUT_MS (unused when the connection string sets keepAliveTimeout). */
  keepAliveTimeoutMs?: number;
}

/**
 * The production event store, on EventStoreDB (KurrentDB) 22.10 or later through its gRPC client.
 *
 * - Versions: a port version is a revision + 1 (0 = no stream), EventStoreDB numbers revisions from 0; both
 *   directions are converted (`toEsdbExpectedRevision`, `toStreamVersion`). A stream truncated with
 *   `truncateBefore` (`$tb`) reads from there on, its versions unchanged: it then holds fewer events than its
 *   version, and its version is still the one of its last event.
 * - Positions are EventStoreDB commit positions (byte offsets in its log): strictly increasing, never reused,
 *   not consecutive. Every event appended through gRPC is committed on its own record, so events of one append
 *   have distinct positions. Numbers are exact below 2^53 (8 PiB of log).
 * - `$all` holds system events (types starting with `$`: link events of the system projections, stats,
 *   metadata...); they are never returned and never count as the head.
 * - Event ids: EventStoreDB deduplicates a retried append by event id, and its ids are UUIDs, so a non-UUID
 *   `metadata.eventId` is mapped to a deterministic UUID (`esdbEventId`). The metadata is stored as given.
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly ownsClient: boolean;
  private readonly logger = new Logger('EventStoreDB');
  /** Live subscriptions, ended by `close`. */
  private readonly subscriptions = new Set<AbortController>();
  private closed = false;

  /**
   * @param connection a connection string (`esdb://host:2113?tls=false`; the store then owns the client, sets
   *   the keepalive defaults and disposes of it on `close`), or a client configured and owned by the caller.
   */
  constructor(connection: string | EventStoreDBClient, options: EventStoreDbEventStoreOptions = {}) {
    if (typeof connection === 'string') {
      this.client = EventStoreDBClient.connectionString(
        withKeepAlive(
          connection,
          options.keepAliveIntervalMs ?? DEFAULT_KEEPALIVE_INTERVAL_MS,
          options.keepAliveTimeoutMs ?? DEFAULT_KEEPALIVE_TIMEOUT_MS,
        ),
      );
      this.ownsClient = true;
    } else {
      this.client = connection;
      this.ownsClient = false;
    }
  }

  async appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: { expectedVersion: ExpectedVersion },
  ): Promise<AppendResult> {
    this.assertOpen();
    const expected = options.expectedVersion;
    const expectedRevision = toEsdbExpectedRevision(expected); // validates
    if (events.length === 0) return this.appendNothing(streamId, expected);

    const proposed = events.map((e) =>
      jsonEvent({
        id: esdbEventId(e.metadata.eventId),
        type: e.type,
        data: e.data as JSONType,
        metadata: { ...e.metadata } as JSONType,
      }),
    );
    let result;
    try {
      result = await this.client.appendToStream(streamId, proposed, { expectedRevision });
    } catch (err) {
      if (isEsdbWrongExpectedVersion(err)) {
        throw new WrongExpectedVersionError(streamId, expected, toStreamVersion(err.actualVersion));
      }
      throw err;
    }
    const nextVersion = toStreamVersion(result.nextExpectedRevision);
    // An idempotent retry (the same event ids already there) succeeds without a position: the server wrote
    // nothing. The position is then the one of the original last event, read back by its revision.
    const position =
      result.position && result.position.commit > 0n
        ? toNumber(result.position.commit)
        : await this.positionAtRevision(streamId, result.nextExpectedRevision);
    return { nextVersion, position };
  }

  async readStream(streamId: string, options: { afterVersion?: number } = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const events: RecordedEvent[] = [];
    // Port versions are revisions + 1: the event after version n has revision n. A truncated stream starts at its
    // truncate-before whatever revision is asked below it.
    const after = options.afterVersion ?? 0;
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: FORWARDS, fromRevision: after > 0 ? BigInt(after) : START })) {
        const recorded = toRecorded(resolved);
        if (!recorded) throw missingPosition(streamId);
        events.push(recorded);
      }
    } catch (err) {
      if (isStreamNotFound(err)) return [];
      throw err;
    }
    return events;
  }

  async readAll(options: { from: number; limit: number }): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const after = toBigPosition(options.from);
    if (after === 0n) return this.readAllFrom(START, after, limit);
    try {
      // The usual case: `from` is the position of an event (a page end, a checkpoint), a valid place to start.
      return await this.readAllFrom(exactPosition(after), after, limit);
    } catch (err) {
      if (!mayBeInvalidPosition(err)) throw err;
    }
    // EventStoreDB can only start reading at a record boundary; any other number is refused.
    return this.readAllFrom(await this.startAtOrBefore(after), after, limit);
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    let cursor: ReadPosition = END;
    for (;;) {
      const page = await this.readPage({ direction: BACKWARDS, fromPosition: cursor, maxCount: 32 });
      for (const resolved of page) {
        const recorded = toRecorded(resolved);
        if (recorded && !isSystemType(recorded.type)) return recorded.position;
      }
      const last = page.length === 32 ? positionOf(page[page.length - 1]) : null;
      if (!last) return 0;
      cursor = last; // a backwards read excludes its start position
    }
  }

  async *subscribe(options: SubscribeOptions): AsyncGenerator<RecordedEvent> {
    if (options.signal?.aborted || this.closed) return;
    const local = new AbortController();
    const abort = () => local.abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    this.subscriptions.add(local);

    const wanted = options.types ? new Set(options.types) : null;
    const filter = wanted ? eventTypeFilter({ regex: typesRegex([...wanted]) }) : excludeSystemEvents();
    /** Everything up to this commit position has been delivered (or was before `from`). */
    let after = toBigPosition(options.from);
    /** A valid position to subscribe from (exclusive): the last record seen, once there is one. */
    let resume: ReadPosition | null = null;
    let delay = RESUBSCRIBE_MIN_MS;
    try {
      while (!local.signal.aborted) {
        let subscription: AllStreamSubscription | undefined;
        try {
          resume ??= await this.subscriptionStart(after);
          if (local.signal.aborted) return;
          subscription = this.client.subscribeToAll({ fromPosition: resume, resolveLinkTos: false, filter });
          // Errors reach the iterator below; this listener only keeps a late one from becoming uncaught.
          subscription.on('error', ignore);
          const iterator = subscription[Symbol.asyncIterator]();
          for (;;) {
            // Reads one event at a time: the server sends more only as the consumer takes them (backpressure).
            const next = await nextOrAbort(iterator, local.signal);
            if (next === ABORTED) return;
            if (next.done) throw new Error('the server ended the subscription');
            delay = RESUBSCRIBE_MIN_MS;
            const position = positionOf(next.value);
            if (!position || position.commit <= after) continue;
            resume = position;
            after = position.commit;
            const recorded = toRecorded(next.value);
            if (!recorded || (wanted ? !wanted.has(recorded.type) : isSystemType(recorded.type))) continue;
            yield recorded;
            if (local.signal.aborted) return;
          }
        } catch (err) {
          if (local.signal.aborted) return;
          if (!isRetryable(err)) throw err;
          this.logger.warn(
            `Subscription to $all dropped (${messageOf(err)}); resubscribing after position ${after} in ${delay} ms`,
          );
        } finally {
          if (subscription) closeSubscription(subscription);
        }
        await sleep(delay, local.signal);
        delay = Math.min(delay * 2, RESUBSCRIBE_MAX_MS);
      }
    } finally {
      options.signal?.removeEventListener('abort', abort);
      this.subscriptions.delete(local);
    }
  }

  // ---- EventStoreDB only (not on the port): stream metadata, for the personal-data migration ----------

  /** The stream's metadata (`truncateBefore`, custom keys...); {} when it has none. */
  async streamMetadata(streamId: string): Promise<StreamMetadata> {
    this.assertOpen();
    return (await this.client.getStreamMetadata(streamId)).metadata ?? {};
  }

  /** Replaces the stream's metadata (a `$metadata` event in `$$<stream>`, a system event never read as one). */
  async setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    this.assertOpen();
    await this.client.setStreamMetadata(streamId, metadata);
  }

  /**
   * Truncates the stream before the event at `version`: stream reads start there (versions unchanged, the
   * stream's version stays the one of its last event), `$all` keeps the earlier events until a scavenge deletes
   * them from the log. Sets the stream's truncate-before (`$tb` = `version - 1`, a revision), keeping its other
   * metadata; never moves an existing truncation back.
   */
  async truncateBefore(streamId: string, version: number): Promise<void> {
    if (!(Number.isSafeInteger(version) && version >= 1)) throw new RangeError(`Invalid version ${String(version)}`);
    const metadata = await this.streamMetadata(streamId);
    const current = typeof metadata.truncateBefore === 'number' ? metadata.truncateBefore : 0;
    if (current >= version - 1) return;
    await this.setStreamMetadata(streamId, { ...metadata, truncateBefore: version - 1 });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const subscription of this.subscriptions) subscription.abort();
    this.subscriptions.clear();
    if (this.ownsClient) await this.client.dispose();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The EventStoreDB event store is closed');
  }

  /** An append of no events: checks the expected version, writes nothing. */
  private async appendNothing(streamId: string, expected: ExpectedVersion): Promise<AppendResult> {
    let last: RecordedEvent | null = null;
    try {
      for await (const resolved of this.client.readStream(streamId, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        last = toRecorded(resolved);
        if (!last) throw missingPosition(streamId);
      }
    } catch (err) {
      if (!isStreamNotFound(err)) throw err;
    }
    const current = last?.streamVersion ?? 0;
    if (expected !== 'any' && expected !== current) throw new WrongExpectedVersionError(streamId, expected, current);
    return { nextVersion: current, position: last?.position ?? 0 };
  }

  /** The commit position of the event at `revision` (0-based) of a stream. */
  private async positionAtRevision(streamId: string, revision: bigint): Promise<number> {
    let position: number | null = null;
    // Read to the end (one event): a read left early keeps its gRPC call open, and `dispose` then waits for it.
    for await (const resolved of this.client.readStream(streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 })) {
      position ??= toRecorded(resolved)?.position ?? null;
    }
    if (position === null) throw missingPosition(streamId);
    return position;
  }

  /** Up to `limit` non-system events with a commit position above `after`, reading forwards from `start`. */
  private async readAllFrom(start: ReadPosition, after: bigint, limit: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    // System events are interleaved (about one link event per system projection per event): read ahead.
    const pageSize = Math.min(PAGE_MAX, Math.max(64, limit * 4 + 1));
    let cursor = start;
    for (;;) {
      const page = await this.readPage({ direction: FORWARDS, fromPosition: cursor, maxCount: pageSize });
      for (const resolved of page) {
        const position = positionOf(resolved);
        if (!position || position.commit <= after) continue; // a forwards read includes its start position
        after = position.commit;
        const recorded = toRecorded(resolved);
        if (!recorded || isSystemType(recorded.type)) continue;
        events.push(recorded);
        if (events.length === limit) return events;
      }
      const last = page.length === pageSize ? positionOf(page[page.length - 1]) : null;
      if (!last) return events;
      cursor = last;
    }
  }

  /** Where a subscription delivering the events after `after` may start (exclusive). */
  private async subscriptionStart(after: bigint): Promise<ReadPosition> {
    if (after === 0n) return START;
    const exact = exactPosition(after);
    try {
      await this.readPage({ direction: FORWARDS, fromPosition: exact, maxCount: 1 });
      return exact;
    } catch (err) {
      if (!mayBeInvalidPosition(err)) throw err;
    }
    return this.startAtOrBefore(after);
  }

  /**
   * A valid read position at or before `target` with no record between it and `target`: the position of the
   * last record at or before `target`, or START. Only needed when `target` is not the position of a record
   * (EventStoreDB refuses to read from inside one); the scan runs from whichever end of the log is nearer.
   */
  private async startAtOrBefore(target: bigint): Promise<ReadPosition> {
    const lastPage = await this.readPage({ direction: BACKWARDS, fromPosition: END, maxCount: SCAN_PAGE });
    const end = lastPage.length > 0 ? positionOf(lastPage[0]) : null;
    if (!end) return START;
    if (target * 2n >= end.commit) {
      let page = lastPage;
      for (;;) {
        for (const resolved of page) {
          const position = positionOf(resolved);
          if (position && position.commit <= target) return position;
        }
        const last = page.length === SCAN_PAGE ? positionOf(page[page.length - 1]) : null;
        if (!last) return START;
        page = await this.readPage({ direction: BACKWARDS, fromPosition: last, maxCount: SCAN_PAGE });
      }
    }
    let best: ReadPosition = START;
    let cursor: ReadPosition = START;
    for (;;) {
      const page = await this.readPage({ direction: FORWARDS, fromPosition: cursor, maxCount: SCAN_PAGE });
      for (const resolved of page) {
        const position = positionOf(resolved);
        if (!position) continue;
        if (position.commit > target) return best;
        best = position;
      }
      const last = page.length === SCAN_PAGE ? positionOf(page[page.length - 1]) : null;
      if (!last) return best;
      cursor = last;
    }
  }

  private async readPage(options: ReadAllOptions): Promise<AllStreamResolvedEvent[]> {
    const page: AllStreamResolvedEvent[] = [];
    for await (const resolved of this.client.readAll({ resolveLinkTos: false, ...options })) page.push(resolved);
    return page;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Pure mappings (unit-tested without a server)

/** The port's expected version (the last event's version, 0 = no stream) as EventStoreDB's (a 0-based revision). */
export function toEsdbExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (!(Number.isSafeInteger(expected) && expected >= 0)) {
    throw new RangeError(`Invalid expected version ${String(expected)}`);
  }
  return expected === 0 ? NO_STREAM : BigInt(expected - 1);
}

/** EventStoreDB's current revision of a stream (0-based, or no stream) as the port's stream version (revision + 1). */
export function toStreamVersion(revision: CurrentRevision | bigint | undefined): number {
  if (revision === undefined || revision === NO_STREAM || revision < 0n) return 0;
  return toNumber(revision) + 1;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Namespace of the name-based (v5) UUIDs derived from Joy event ids that are not UUIDs. */
export const JOY_EVENT_ID_NAMESPACE = '8c2d6a54-3f1e-4b7a-9d0c-5e4f3a2b1c0d';

/**
 * The EventStoreDB event id for a port event id: the id itself when it is a UUID (lower-cased), else the
 * name-based UUID (RFC 4122 version 5: SHA-1 of namespace and name) of it, so that a retried append carries
 * the same ids and EventStoreDB recognises it.
 */
export function esdbEventId(eventId: string): string {
  return UUID.test(eventId) ? eventId.toLowerCase() : uuidV5(eventId, JOY_EVENT_ID_NAMESPACE);
}

/** RFC 4122 name-based UUID, version 5. */
export function uuidV5(name: string, namespace: string): string {
  if (!UUID.test(namespace)) throw new RangeError(`Invalid namespace UUID ${namespace}`);
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The connection string with the keepalive settings added where it does not set them. */
export function withKeepAlive(connectionString: string, intervalMs: number, timeoutMs: number): string {
  const extra: string[] = [];
  if (!/[?&]keep[-_]?alive[-_]?interval=/i.test(connectionString)) extra.push(`keepAliveInterval=${intervalMs}`);
  if (!/[?&]keep[-_]?alive[-_]?timeout=/i.test(connectionString)) extra.push(`keepAliveTimeout=${timeoutMs}`);
  if (extra.length === 0) return connectionString;
  const base = connectionString.trim().replace(/\/+$/, '');
  const separator = base.includes('?') ? (/[?&]$/.test(base) ? '' : '&') : '?';
  return `${base}${separator}${extra.join('&')}`;
}

/** An anchored regex matching exactly the given event types (for the server-side subscription filter). */
export function typesRegex(types: readonly string[]): string {
  if (types.length === 0) return '^(?!)$'; // matches nothing
  return `^(?:${types.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

const ABORTED = Symbol('aborted');

function ignore(): void {
  // An error after the subscription was given up.
}

function isSystemType(type: string): boolean {
  return type.startsWith('$');
}

function toNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`Position ${value} is beyond 2^53`);
  return Number(value);
}

function toBigPosition(from: number): bigint {
  return Number.isFinite(from) && from > 0 ? BigInt(Math.floor(from)) : 0n;
}

/** EventStoreDB positions of events appended through gRPC have equal commit and prepare positions. */
function exactPosition(commit: bigint): Position {
  return { commit, prepare: commit };
}

interface ResolvedLike {
  event?: {
    streamId: string;
    id: string;
    revision: bigint;
    type: string;
    data: unknown;
    metadata?: unknown;
    created: Date;
    position?: Position;
  };
  commitPosition?: bigint;
}

/** The log position of a read or subscribed record (null when the server did not send one). */
function positionOf(resolved: ResolvedLike): Position | null {
  const position = resolved.event?.position;
  if (position && position.commit > 0n) return position;
  if (resolved.commitPosition !== undefined && resolved.commitPosition > 0n) {
    return exactPosition(resolved.commitPosition);
  }
  return null;
}

/** The port's view of a recorded event; null without an event or a position. */
function toRecorded(resolved: ResolvedLike): RecordedEvent | null {
  const event = resolved.event;
  const position = positionOf(resolved);
  if (!event || !position) return null;
  return {
    streamId: event.streamId,
    streamVersion: toStreamVersion(event.revision),
    position: toNumber(position.commit),
    type: event.type,
    data: asObject(event.data) ?? {},
    metadata: (asObject(event.metadata) as EventMetadata | null) ?? foreignMetadata(event),
  };
}

/** A JSON object, from parsed JSON or from bytes holding JSON; null otherwise. */
function asObject(value: unknown): Record<string, unknown> | null {
  if (value instanceof Uint8Array) {
    try {
      value = JSON.parse(Buffer.from(value).toString('utf8'));
    } catch {
      return null;
    }
  }
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  return isObject ? (value as Record<string, unknown>) : null;
}

/** Metadata for an event written by another tool, without Joy's metadata. */
function foreignMetadata(event: NonNullable<ResolvedLike['event']>): EventMetadata {
  return {
    eventId: event.id,
    schemaVersion: 1,
    correlationId: event.id,
    causationId: event.id,
    actorUserId: 'system',
    occurredAt: event.created.toISOString(),
  };
}

function missingPosition(streamId: string): Error {
  return new Error(`EventStoreDB sent an event of ${streamId} without its log position (needs server 22.10 or later)`);
}

function isEsdbWrongExpectedVersion(err: unknown): err is EsdbWrongExpectedVersionError {
  return (
    err instanceof EsdbWrongExpectedVersionError ||
    (err instanceof Error && isCommandError(err) && err.type === ErrorType.WRONG_EXPECTED_VERSION)
  );
}

function isStreamNotFound(err: unknown): boolean {
  return (
    err instanceof StreamNotFoundError ||
    (err instanceof Error && isCommandError(err) && err.type === ErrorType.STREAM_NOT_FOUND)
  );
}

/** Errors that say nothing about the position: the connection, the deadline, the rights. */
const NOT_ABOUT_POSITION = new Set<ErrorType>([
  ErrorType.UNAVAILABLE,
  ErrorType.DEADLINE_EXCEEDED,
  ErrorType.TIMEOUT,
  ErrorType.ACCESS_DENIED,
  ErrorType.NOT_LEADER,
  ErrorType.CANCELLED,
]);

/** Whether a failed read from a position may be the server refusing that position (not a record boundary). */
function mayBeInvalidPosition(err: unknown): boolean {
  return !(err instanceof Error && isCommandError(err) && NOT_ABOUT_POSITION.has(err.type));
}

/** Whether a dropped subscription is worth resubscribing (everything but a refusal of the credentials). */
function isRetryable(err: unknown): boolean {
  return !(err instanceof Error && isCommandError(err) && err.type === ErrorType.ACCESS_DENIED);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

/** The next item, or ABORTED as soon as the signal aborts (the pending read is then abandoned). */
function nextOrAbort<T>(
  iterator: AsyncIterator<T>,
  signal: AbortSignal,
): Promise<IteratorResult<T> | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  const next = iterator.next();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      next.catch(ignore); // abandoned: its outcome no longer matters
      resolve(ABORTED);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    next.then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Cancels the gRPC call and ends the stream, without waiting for the server. */
function closeSubscription(subscription: AllStreamSubscription): void {
  subscription.unsubscribe().catch(ignore);
  subscription.destroy();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
