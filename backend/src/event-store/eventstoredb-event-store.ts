import { Logger } from '@nestjs/common';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  jsonEvent,
  type JSONType,
  type ReadStreamOptions,
  type ResolvedEvent,
  type StreamMetadata,
} from '@eventstore/db-client';
import {
  AppendResult,
  EventStore,
  EventStoreOutcomeUnknownError,
  EventStoreRefusedError,
  EventStoreUnavailableError,
  EventToAppend,
  ExpectedVersion,
  RecordedEvent,
  SubscribeOptions,
  WrongExpectedVersionError,
} from './event-store.port';
import { AllStream } from './eventstoredb-all';
import { isEsdbWrongExpectedVersion, isNotLeader, isStreamNotFound, neverSent, toPortError } from './eventstoredb-errors';
import {
  esdbEventId,
  missingPosition,
  toBigPosition,
  toEsdbExpectedRevision,
  toNumber,
  toRecorded,
  toStreamMetadata,
  toStreamVersion,
  withKeepAlive,
} from './eventstoredb-mappings';
import { answerWithin, deadlineOf, readWithin } from './eventstoredb-deadlines';
import { subscribeToAll } from './eventstoredb-subscription';

export {
  esdbEventId,
  JOY_EVENT_ID_NAMESPACE,
  toEsdbExpectedRevision,
  toStreamVersion,
  typesRegex,
  uuidV5,
  withKeepAlive,
} from './eventstoredb-mappings';

/**
 * Keepalive defaults, added to the connection string unless it sets its own `keepAliveInterval` /
 * `keepAliveTimeout`: a ping every 10 s on an idle HTTP/2 connection, and the connection is closed (and the
 * subscriptions on it dropped, then resumed by `subscribe`) when a ping is not acknowledged within 10 s. They
 * are the client's own defaults, set explicitly so that they are visible and cannot silently change.
 */
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 10_000;
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 10_000;

/** Attempts of a call answered NotLeader: the client reconnects to the leader the node names, then it is retried. */
const LEADER_ATTEMPTS = 3;
const LEADER_RETRY_MS = 50;
/** Events read per call of a stream read (each call has its own deadline). */
const STREAM_PAGE = 1_000;
/** How long past its deadline an append may still be answered by the server (which enforces the deadline). */
const APPEND_GRACE_MS = 500;
/** How long an unanswered append is sent again (see `resendingUnanswered`), and the pauses between. */
const RESEND_WINDOW_MS = 5_000;
const RESEND_BACKOFF_MS = 100;
const RESEND_BACKOFF_MAX_MS = 1_000;
/** Attempts of `truncateBefore` against concurrent metadata writes (each sees the other's and retries). */
const METADATA_ATTEMPTS = 10;

export interface EventStoreDbEventStoreOptions {
  /** Overrides DEFAULT_KEEPALIVE_INTERVAL_MS (unused when the connection string sets keepAliveInterval). */
  keepAliveIntervalMs?: number;
  /** Overrides DEFAULT_KEEPALIVE_TIMEOUT_MS (unused when the connection string sets keepAliveTimeout). */
  keepAliveTimeoutMs?: number;
  /** How long a call may take (default: the connection string's `defaultDeadline`, else 10 s, the client's). */
  deadlineMs?: number;
  /** How long an append left unanswered is sent again before it is reported as of unknown outcome (default 5 s). */
  resendWindowMs?: number;
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
 *   have distinct positions. Numbers are exact below 2^53 (8 PiB of log). Reads of `$all`: `AllStream`.
 * - Event ids: EventStoreDB deduplicates a retried append by event id, and its ids are UUIDs, so a non-UUID
 *   `metadata.eventId` is mapped to a deterministic UUID (`esdbEventId`). The metadata is stored as given.
 * - Failures: a call answered NotLeader is retried on the leader the node names; a server unreachable or past the
 *   deadline is EventStoreUnavailableError (503), access denied EventStoreRefusedError (see eventstoredb-errors).
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly ownsClient: boolean;
  private readonly all: AllStream;
  /** How long a call may take: reads (the client sets no deadline on them), and appends (see `answerWithin`). */
  private readonly deadlineMs: number;
  private readonly resendWindowMs: number;
  private readonly logger = new Logger('EventStoreDB');
  /** Live subscriptions, ended by `close`. */
  private readonly subscriptions = new Set<AbortController>();
  private closed = false;

  /**
   * @param connection a connection string (`esdb://host:2113?tls=false`; the store then owns the client, sets
   *   the keepalive defaults and disposes of it on `close`), or a client configured and owned by the caller.
   */
  constructor(connection: string | EventStoreDBClient, options: EventStoreDbEventStoreOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? (typeof connection === 'string' ? deadlineOf(connection) : 10_000);
    this.resendWindowMs = options.resendWindowMs ?? RESEND_WINDOW_MS;
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
    this.all = new AllStream(this.client, this.deadlineMs);
  }

  async appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: { expectedVersion: ExpectedVersion },
  ): Promise<AppendResult> {
    this.assertOpen();
    const expected = options.expectedVersion;
    const expectedRevision = toEsdbExpectedRevision(expected); // validates
    if (events.length === 0) return this.call(`read ${streamId}`, () => this.appendNothing(streamId, expected));

    const proposed = events.map((e) =>
      jsonEvent({
        id: esdbEventId(e.metadata.eventId),
        type: e.type,
        data: e.data as JSONType,
        metadata: { ...e.metadata } as JSONType,
      }),
    );
    const what = `append to ${streamId}`;
    const result = await this.resendingUnanswered(what, () =>
      this.call(what, async () => {
        try {
          return await this.answered(this.client.appendToStream(streamId, proposed, { expectedRevision }), what);
        } catch (err) {
          if (!isEsdbWrongExpectedVersion(err)) throw err;
          throw new WrongExpectedVersionError(streamId, expected, toStreamVersion(err.actualVersion));
        }
      }),
    );
    const nextVersion = toStreamVersion(result.nextExpectedRevision);
    // An idempotent retry (the same event ids already there) succeeds without a position: the server wrote
    // nothing. The position is then the one of the original last event, read back by its revision.
    const position =
      result.position && result.position.commit > 0n
        ? toNumber(result.position.commit)
        : await this.call(`read ${streamId}`, () => this.positionAtRevision(streamId, result.nextExpectedRevision));
    return { nextVersion, position };
  }

  async readStream(streamId: string, options: { afterVersion?: number } = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    // Port versions are revisions + 1: the event after version n has revision n. A truncated stream starts at its
    // truncate-before whatever revision is asked below it.
    // Read in pages, each with its own deadline: a long stream (a person's years of ratings, an import) on a slow
    // link must not fail as a whole because it takes longer than one read may.
    let after = options.afterVersion ?? 0;
    const events: RecordedEvent[] = [];
    for (;;) {
      const page = await this.call(`read ${streamId}`, async () => {
        const read = await this.readOf(streamId, { direction: FORWARDS, fromRevision: after > 0 ? BigInt(after) : START, maxCount: STREAM_PAGE });
        return read.map((resolved) => toRecorded(resolved) ?? missing(streamId));
      });
      events.push(...page);
      if (page.length < STREAM_PAGE) return events;
      after = page.at(-1)!.streamVersion;
    }
  }

  async readAll(options: { from: number; limit: number }): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    return this.call('read $all', () => this.all.readAfter(toBigPosition(options.from), limit));
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    return this.call('read the head of $all', () => this.all.head());
  }

  async *subscribe(options: SubscribeOptions): AsyncGenerator<RecordedEvent> {
    if (options.signal?.aborted || this.closed) return;
    const local = new AbortController();
    const abort = () => local.abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    this.subscriptions.add(local);
    try {
      yield* subscribeToAll(this.client, this.all, { ...options, signal: local.signal }, this.logger);
    } finally {
      options.signal?.removeEventListener('abort', abort);
      this.subscriptions.delete(local);
    }
  }

  // ---- EventStoreDB only (not on the port): stream metadata, for the personal-data migration ----------

  /** The stream's metadata (`truncateBefore`, custom keys...); {} when it has none. */
  async streamMetadata(streamId: string): Promise<StreamMetadata> {
    this.assertOpen();
    return this.call(`read the metadata of ${streamId}`, async () => (await this.metastream(streamId)).metadata);
  }

  /** Replaces the stream's metadata (a `$metadata` event in `$$<stream>`, a system event never read as one). */
  async setStreamMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    this.assertOpen();
    const what = `write the metadata of ${streamId}`;
    await this.call(what, () => this.answered(this.client.setStreamMetadata(streamId, metadata), what));
  }

  /**
   * Truncates the stream before the event at `version`: stream reads start there (versions unchanged, the
   * stream's version stays the one of its last event), `$all` keeps the earlier events until a scavenge deletes
   * them from the log. Sets the stream's truncate-before (`$tb` = `version - 1`, a revision), keeping its other
   * metadata; never moves an existing truncation back, also against concurrent writers: the metadata is written
   * only if the metastream is still at the revision it was read at (else read again and decided again).
   */
  async truncateBefore(streamId: string, version: number): Promise<void> {
    if (!(Number.isSafeInteger(version) && version >= 1)) throw new RangeError(`Invalid version ${String(version)}`);
    this.assertOpen();
    for (let attempt = 1; ; attempt++) {
      const { metadata, revision } = await this.call(`read the metadata of ${streamId}`, () => this.metastream(streamId));
      const current = typeof metadata.truncateBefore === 'number' ? metadata.truncateBefore : 0;
      if (current >= version - 1) return;
      try {
        const what = `write the metadata of ${streamId}`;
        await this.call(what, () =>
          this.answered(this.client.setStreamMetadata(streamId, { ...metadata, truncateBefore: version - 1 }, { expectedRevision: revision }), what),
        );
        return;
      } catch (err) {
        if (!isEsdbWrongExpectedVersion(err) || attempt >= METADATA_ATTEMPTS) throw err;
      }
    }
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

  /**
   * Runs a call to the server (`what` it does, for the error): retried when the node is not the leader (the
   * client has reconnected to the leader it named by then), its failures turned into the port's errors.
   */
  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (isNotLeader(err) && attempt < LEADER_ATTEMPTS) {
          this.logger.warn(`Not the leader (${what}); retrying on the leader it named`);
          await new Promise((resolve) => setTimeout(resolve, LEADER_RETRY_MS * attempt));
          continue;
        }
        throw toPortError(err, what);
      }
    }
  }

  /**
   * An append whose answer never came (the connection dropped after it was sent, the deadline passed) may have been
   * stored: a new request with new ids would then store it twice. So it is sent again, the same events with the same
   * ids and expected revision, which EventStoreDB answers as written if it was (an idempotent success), for up to
   * `resendWindowMs` (a leader's failover takes seconds). Still unanswered: EventStoreOutcomeUnknownError, which
   * never says that nothing was saved. One that surely never left (no connection at all) fails at once, as it was.
   */
  private async resendingUnanswered<T>(what: string, send: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        if (!(err instanceof EventStoreUnavailableError) || err instanceof EventStoreRefusedError) throw err;
        if (attempt === 1 && neverSent(err)) throw err;
        if (Date.now() - started >= this.resendWindowMs) {
          throw new EventStoreOutcomeUnknownError(
            `EventStoreDB did not answer an append within ${this.resendWindowMs} ms of sending it again (${what}): it may be stored; check that the server runs and that EVENTSTORE_URL names it`,
            { cause: err },
          );
        }
        this.logger.warn(`No answer to an append (${what}); sending the same events again (attempt ${attempt + 1})`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(RESEND_BACKOFF_MAX_MS, RESEND_BACKOFF_MS * 2 ** (attempt - 1))));
      }
    }
  }

  /** An append's answer: the server's, which enforces the deadline, or unavailable shortly after it (a hung server). */
  private answered<T>(append: Promise<T>, what: string): Promise<T> {
    return answerWithin(append, this.deadlineMs + APPEND_GRACE_MS, what);
  }

  /** The stream's metadata (the last event of its metastream `$$<stream>`) and that event's revision (or NO_STREAM). */
  private async metastream(streamId: string): Promise<{ metadata: StreamMetadata; revision: bigint | typeof NO_STREAM }> {
    const [last] = await this.readOf(`$$${streamId}`, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    const data = last?.event?.isJson ? (last.event.data as Record<string, unknown>) : null;
    return { metadata: data ? toStreamMetadata(data) : {}, revision: last?.event ? last.event.revision : NO_STREAM };
  }

  /** A read of a stream within the read deadline; [] when the stream does not exist. */
  private async readOf(streamId: string, options: ReadStreamOptions): Promise<ResolvedEvent[]> {
    try {
      return await readWithin(this.client.readStream(streamId, options), this.deadlineMs, `read ${streamId}`);
    } catch (err) {
      if (isStreamNotFound(err)) return [];
      throw err;
    }
  }

  /** An append of no events: checks the expected version, writes nothing. */
  private async appendNothing(streamId: string, expected: ExpectedVersion): Promise<AppendResult> {
    const [resolved] = await this.readOf(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    const last = resolved ? (toRecorded(resolved) ?? missing(streamId)) : null;
    const current = last?.streamVersion ?? 0;
    if (expected !== 'any' && expected !== current) throw new WrongExpectedVersionError(streamId, expected, current);
    return { nextVersion: current, position: last?.position ?? 0 };
  }

  /** The commit position of the event at `revision` (0-based) of a stream. */
  private async positionAtRevision(streamId: string, revision: bigint): Promise<number> {
    const [resolved] = await this.readOf(streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 });
    return (resolved && toRecorded(resolved)?.position) || missing(streamId);
  }
}

/** Throws: the server sent an event without its log position. */
function missing(streamId: string): never {
  throw missingPosition(streamId);
}
