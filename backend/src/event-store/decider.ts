import { randomUUID } from 'node:crypto';
import { DomainError } from '@joy/domain';
import {
  AppendResult,
  EventMetadata,
  EventStore,
  isCopyEventId,
  RecordedEvent,
  WrongExpectedVersionError,
} from './event-store.port';
import { Turns } from './turns';

/** A domain event as deciders produce it: a type and its data. */
export interface DomainEvent<T extends string = string, D extends object = object> {
  type: T;
  data: D;
}

/**
 * The pure core of a feature: `evolve` folds past events into state, `decide` turns a command and the
 * state into new events or throws a DomainError. No I/O, so both are tested given/when/then.
 */
export interface Decider<S, C, E extends DomainEvent> {
  initialState: S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}

/** Who and what caused a command, copied into every event's metadata. */
export interface CommandContext {
  actorUserId: string;
  correlationId?: string;
  causationId?: string;
  now?: Date;
}

export function metadataFor(ctx: CommandContext, eventId: string, schemaVersion = 1): EventMetadata {
  const correlationId = ctx.correlationId ?? randomUUID();
  return {
    eventId,
    schemaVersion,
    correlationId,
    causationId: ctx.causationId ?? correlationId,
    actorUserId: ctx.actorUserId,
    occurredAt: (ctx.now ?? new Date()).toISOString(),
  };
}

export interface CommandResult<E, S = unknown> {
  events: E[];
  append: AppendResult | null;
  /** The state the decision was made on (before `events`): what a command that decided nothing answers from. */
  state: S;
}

/** The folded state of a stream at a version, so the next command reads only what came after it. */
export interface Folded<S> {
  version: number;
  state: S;
}

const MAX_CACHED_STREAMS = 10_000;
/** Per store and decider: streamId → folded state. States are immutable (evolve is pure), so sharing is safe. */
const foldedStreams = new WeakMap<EventStore, WeakMap<object, Map<string, Folded<unknown>>>>();

function cacheFor<S>(store: EventStore, decider: object): Map<string, Folded<S>> {
  let byDecider = foldedStreams.get(store);
  if (!byDecider) foldedStreams.set(store, (byDecider = new WeakMap()));
  let streams = byDecider.get(decider);
  if (!streams) byDecider.set(decider, (streams = new Map()));
  return streams as Map<string, Folded<S>>;
}

/** Attempts of one command before a conflict is answered 409 (each after a re-read and a new decision). */
export const MAX_ATTEMPTS = 6;
/** Full jitter: before attempt n (n ≥ 2), a random wait of up to BASE · 2^(n−2) ms, capped. */
const RETRY_BASE_MS = 4;
const RETRY_CAP_MS = 100;

/** How long to wait before attempt `attempt` (≥ 2) after a conflict: random, so that rivals spread apart. */
export function retryDelayMs(attempt: number, random = Math.random): number {
  return Math.floor(random() * Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 2)));
}

/**
 * A command still conflicting after MAX_ATTEMPTS (another process kept changing the stream): answered 409 with
 * this reason, never 500. Nothing of it was stored.
 */
export class ConcurrencyConflictError extends DomainError {
  constructor(readonly streamId: string) {
    super('store.conflict', 'This changed at the same moment somewhere else, so nothing was saved. Please try again.');
    this.name = 'ConcurrencyConflictError';
  }
}

/** Per store: the commands queued per stream in this process. */
const streamTurns = new WeakMap<EventStore, Turns>();

/**
 * Runs `work` after every earlier command on the same stream in this process has finished: commands of one
 * process never conflict with each other (a burst of one person's writes is a queue, not a storm of retries).
 * Conflicts with other processes are still possible and retried.
 */
function inTurn<T>(store: EventStore, streamId: string, work: () => Promise<T>): Promise<T> {
  let turns = streamTurns.get(store);
  if (!turns) streamTurns.set(store, (turns = new Turns()));
  return turns.run(streamId, work);
}

export interface CommandOptions<E> {
  eventIds?: (events: E[], version: number) => string[];
  upcast?: (e: RecordedEvent) => E;
  /**
   * The stored form of a new event (e.g. personal fields encrypted) and its schemaVersion; the decider's own
   * plaintext event is what `evolve` folds and what the caller gets back.
   */
  encode?: (e: E) => { data: Record<string, unknown>; schemaVersion: number };
}

/**
 * Load the stream, fold it, decide, append with the expected version. Commands on one stream in this process
 * take turns (see `inTurn`); on a conflict with another process, reload and decide again after a random wait
 * (bounded: MAX_ATTEMPTS, then ConcurrencyConflictError, a 409). `eventIds` may make ids deterministic so that a
 * retried command cannot append twice. The folded state is cached per stream, so a long stream is read once and
 * then only its new events; the expected version keeps this correct when another process appended meanwhile.
 */
export async function decideAndAppend<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  ctx: CommandContext,
  options: CommandOptions<E> = {},
): Promise<CommandResult<E, S>> {
  return inTurn(store, streamId, async () => {
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
      try {
        return await attemptOnce(store, streamId, decider, command, ctx, options);
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError)) throw err;
        if (attempt >= MAX_ATTEMPTS) throw new ConcurrencyConflictError(streamId);
      }
    }
  });
}

async function attemptOnce<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  ctx: CommandContext,
  options: CommandOptions<E>,
): Promise<CommandResult<E, S>> {
  const { version, state } = await foldStream(store, streamId, decider, options.upcast);
  const events = decider.decide(command, state);
  if (events.length === 0) return { events, append: null, state };
  const ids = options.eventIds?.(events, version) ?? events.map(() => randomUUID());
  const append = await store.appendToStream(
    streamId,
    events.map((e, i) => {
      const stored = options.encode?.(e) ?? { data: e.data as Record<string, unknown>, schemaVersion: 1 };
      return { type: e.type, data: stored.data, metadata: metadataFor(ctx, ids[i], stored.schemaVersion) };
    }),
    { expectedVersion: version },
  );
  remember(cacheFor<S>(store, decider), streamId, { version: append.nextVersion, state: events.reduce(decider.evolve, state) });
  return { events, append, state };
}

/**
 * A stream folded by a decider as it is now, from the state cached for it (only the events since are read); the
 * state a command would be decided on, for a caller that checks a whole request before its first write.
 */
export async function foldStream<S, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<S, unknown, E>, 'initialState' | 'evolve'>,
  upcast: (e: RecordedEvent) => E = (e) => ({ type: e.type, data: e.data }) as unknown as E,
): Promise<Folded<S>> {
  const cache = cacheFor<S>(store, decider);
  let folded = cache.get(streamId) ?? { version: 0, state: decider.initialState };
  let newer = await store.readStream(streamId, { afterVersion: folded.version });
  if (folded.version > 0 && newer.some((e) => isCopyEventId(e.metadata.eventId))) {
    // The stream was rewritten as copies of its events since it was folded (see `copyEventId`): the cached
    // state holds the originals already, so fold again from the start (the copies only, once truncated).
    folded = { version: 0, state: decider.initialState };
    newer = await store.readStream(streamId);
  }
  // The last event's version, not a count: a truncated EventStoreDB stream holds fewer events than its version.
  const version = newer.length > 0 ? newer[newer.length - 1].streamVersion : folded.version;
  const state = newer.map(upcast).reduce(decider.evolve, folded.state);
  remember(cache, streamId, { version, state });
  return { version, state };
}

function remember<S>(cache: Map<string, Folded<S>>, streamId: string, folded: Folded<S>): void {
  cache.delete(streamId);
  cache.set(streamId, folded);
  if (cache.size > MAX_CACHED_STREAMS) cache.delete(cache.keys().next().value!);
}
