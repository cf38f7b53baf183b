import { randomUUID } from 'node:crypto';
import {
  AppendResult,
  EventMetadata,
  EventStore,
  isCopyEventId,
  RecordedEvent,
  WrongExpectedVersionError,
} from './event-store.port';

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

/** A rule the command broke; the HTTP layer answers with `status` and `message` as they are. */
export class DomainError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
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

export interface CommandResult<E> {
  events: E[];
  append: AppendResult | null;
}

/** The folded state of a stream at a version, so the next command reads only what came after it. */
interface Folded<S> {
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

/**
 * Load the stream, fold it, decide, append with the expected version; on a version conflict, reload and
 * decide again (a few times). `eventIds` may make ids deterministic so that a retried command cannot append
 * twice. The folded state is cached per stream, so a long stream is read once and then only its new events;
 * the expected version keeps this correct when another process appended meanwhile.
 */
export async function decideAndAppend<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  ctx: CommandContext,
  options: {
    eventIds?: (events: E[], version: number) => string[];
    upcast?: (e: RecordedEvent) => E;
    /**
     * The stored form of a new event (e.g. personal fields encrypted) and its schemaVersion; the decider's own
     * plaintext event is what `evolve` folds and what the caller gets back.
     */
    encode?: (e: E) => { data: Record<string, unknown>; schemaVersion: number };
  } = {},
): Promise<CommandResult<E>> {
  const upcast = options.upcast ?? ((e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as E);
  const cache = cacheFor<S>(store, decider);
  for (let attempt = 1; ; attempt++) {
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
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, append: null };
    const ids = options.eventIds?.(events, version) ?? events.map(() => randomUUID());
    try {
      const append = await store.appendToStream(
        streamId,
        events.map((e, i) => {
          const stored = options.encode?.(e) ?? { data: e.data as Record<string, unknown>, schemaVersion: 1 };
          return { type: e.type, data: stored.data, metadata: metadataFor(ctx, ids[i], stored.schemaVersion) };
        }),
        { expectedVersion: version },
      );
      remember(cache, streamId, { version: append.nextVersion, state: events.reduce(decider.evolve, state) });
      return { events, append };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError && attempt < 5) continue;
      throw err;
    }
  }
}

function remember<S>(cache: Map<string, Folded<S>>, streamId: string, folded: Folded<S>): void {
  cache.delete(streamId);
  cache.set(streamId, folded);
  if (cache.size > MAX_CACHED_STREAMS) cache.delete(cache.keys().next().value!);
}
