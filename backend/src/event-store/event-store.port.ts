/**
 * The event store port. Two adapters implement it (SQLite for the embedded default, EventStoreDB for
 * production) and both must pass `event-store.conformance.ts`.
 *
 * Versions: the first event of a stream has streamVersion 1, each next one the next number, and a stream's
 * version is the one of its last event (the number of events ever appended to it; 0 = no stream). An EventStoreDB
 * stream truncated before an event (`$tb`, see the personal-data migration) reads from that event on with the
 * versions unchanged, so it may hold fewer events than its version: take the version from the last event read,
 * never from a count of events.
 *
 * Positions: the global order. They are strictly increasing in global order and never reused,
 * and a reader never sees a gap that later fills (an event that appears later always gets a higher position
 * than every event already visible). They are not necessarily consecutive: the SQLite adapter numbers them
 * 1..n, the EventStoreDB adapter uses commit positions (byte offsets in its log).
 */

export interface EventMetadata {
  /** Unique id of the event; deterministic where a retried command must not append twice. */
  eventId: string;
  /** Version of the event's data shape; stored JSON is never rewritten, older versions are upcast on read. */
  schemaVersion: number;
  correlationId: string;
  causationId: string;
  /** The signed-in user who caused the event, or 'system'. */
  actorUserId: string;
  /** ISO-8601 timestamp. */
  occurredAt: string;
}

export interface EventToAppend {
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface RecordedEvent {
  streamId: string;
  /** 1-based number of this event within its stream. */
  streamVersion: number;
  /**
   * Global position: strictly increasing in global order, never reused; a reader never sees a gap that later
   * fills. The SQLite adapter numbers them 1..n; EventStoreDB's are commit positions (not consecutive).
   */
  position: number;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

/** The stream's version expected before the append (its last event's; 0 = the stream must not exist yet), or 'any'. */
export type ExpectedVersion = number | 'any';

export interface AppendResult {
  /** The stream's version after the append (= the last event's version). */
  nextVersion: number;
  /** Global position of the last event written. */
  position: number;
}

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expectedVersion: ExpectedVersion,
    readonly actualVersion: number,
  ) {
    super(`Stream ${streamId}: expected version ${expectedVersion}, actual ${actualVersion}`);
    this.name = 'WrongExpectedVersionError';
  }
}

/**
 * The store cannot take appends right now (disk full, read-only file, I/O error, lost connection). `reason`
 * says which part failed and what an operator can do; nothing of the append was stored (but for its subclass
 * EventStoreOutcomeUnknownError). Answered 503.
 */
export class EventStoreUnavailableError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'EventStoreUnavailableError';
  }
}

/**
 * An append was sent and its answer never came (the connection dropped, the deadline passed), and sending it
 * again did not get one either: it may have been stored. Unavailable (503) like its parent, but never said to have
 * stored nothing. Only a networked store (EventStoreDB) has it.
 */
export class EventStoreOutcomeUnknownError extends EventStoreUnavailableError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'EventStoreOutcomeUnknownError';
  }
}

/**
 * The store refuses this client for good (EventStoreDB: access denied, the connection's user lacks the rights):
 * unavailable (503) to the caller, but retrying cannot help until an operator changes the credentials or the
 * ACLs, so long-running readers (the relay) stop on it rather than retry. `reason` says so.
 */
export class EventStoreRefusedError extends EventStoreUnavailableError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'EventStoreRefusedError';
  }
}

/**
 * An event that cannot be read (its stored JSON damaged, or the file around it): nothing after it can be applied
 * in order, so the app refuses to start on it and health reports it. The message names the store, the position
 * and the commands that find and move such events aside.
 */
export class UnreadableEventError extends Error {
  constructor(
    /** The file (or server) that holds it. */
    readonly source: string,
    readonly position: number,
    readonly detail: string,
  ) {
    super(
      `${source}: the event at position ${position} cannot be read (${detail}). Events after it cannot be applied in order, ` +
        `so Joy does not run on it. List the damaged events with "npm run events -- verify", then move this one aside with ` +
        `"npm run events -- quarantine ${position}" (the file is backed up first and the event kept in its quarantined_events ` +
        `table), or restore the file from a backup; then start again.`,
    );
    this.name = 'UnreadableEventError';
  }
}

export interface SubscribeOptions {
  /** Deliver events with a position strictly greater than this (0 = from the start). */
  from: number;
  /** Only these event types (all when absent). Positions still advance past filtered-out events. */
  types?: readonly string[];
  /** Ends the iteration. */
  signal?: AbortSignal;
}

export interface EventStore {
  appendToStream(
    streamId: string,
    events: readonly EventToAppend[],
    options: { expectedVersion: ExpectedVersion },
  ): Promise<AppendResult>;
  /**
   * The stream's events in stream order; [] when the stream does not exist. With `afterVersion`, only the
   * events after that version (so a caller that already folded the first n events reads just the rest).
   */
  readStream(streamId: string, options?: { afterVersion?: number }): Promise<RecordedEvent[]>;
  /** Events with position > from, in global order, at most `limit`. */
  readAll(options: { from: number; limit: number }): Promise<RecordedEvent[]>;
  /** The highest position written so far (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Catch-up then live subscription in global order. Consume with `for await`: the next event is read
   * only when the consumer asks for it (backpressure).
   */
  subscribe(options: SubscribeOptions): AsyncIterable<RecordedEvent>;
  /**
   * Whether an append would be stored now, without adding an event (health checks): resolves, or rejects with
   * an EventStoreUnavailableError naming the part that failed. Adapters without it are probed by a read.
   */
  probeAppend?(): Promise<void>;
  /**
   * Appends to several streams at once, all or nothing, each with its expected version (imports; the SQLite
   * adapter has it). `truncatedStreams`: a stream may start above version 1 (an export of a truncated stream).
   */
  appendBatch?(appends: readonly StreamAppend[], options?: { truncatedStreams?: boolean }): Promise<AppendResult[]>;
  close(): Promise<void>;
}

/** One stream's part of `appendBatch`. */
export interface StreamAppend {
  streamId: string;
  events: readonly EventToAppend[];
  expectedVersion: ExpectedVersion;
}

/**
 * Copies: EventStoreDB events are immutable, so a stream is rewritten (the personal-data migration) by appending
 * a copy of each of its events, with the id `rekey-<original id>`, then truncating the stream before the first
 * copy. A reader that had folded the originals must fold again from the start when it meets copies.
 */
export const copyEventId = (eventId: string) => `rekey-${eventId}`;
export const isCopyEventId = (eventId: string) => eventId.startsWith('rekey-');

/** The category of a stream is the part before the first '-': `ratings-42` → `ratings`. */
export function streamCategory(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}

/** Nest injection token of the EventStore. */
export const EVENT_STORE = 'EventStore';
