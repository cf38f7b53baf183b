import { randomUUID } from 'node:crypto';
import {
  AppendResult,
  EventMetadata,
  EventStore,
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

/**
 * Load the stream, fold it, decide, append with the expected version; on a version conflict, reload and
 * decide again (a few times). `eventIds` may make ids deterministic so that a retried command cannot append
 * twice.
 */
export async function decideAndAppend<S, C, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  ctx: CommandContext,
  options: { eventIds?: (events: E[], version: number) => string[]; upcast?: (e: RecordedEvent) => E } = {},
): Promise<CommandResult<E>> {
  const upcast = options.upcast ?? ((e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as E);
  for (let attempt = 1; ; attempt++) {
    const recorded = await store.readStream(streamId);
    const state = recorded.map(upcast).reduce(decider.evolve, decider.initialState);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, append: null };
    const ids = options.eventIds?.(events, recorded.length) ?? events.map(() => randomUUID());
    try {
      const append = await store.appendToStream(
        streamId,
        events.map((e, i) => ({ type: e.type, data: e.data as Record<string, unknown>, metadata: metadataFor(ctx, ids[i]) })),
        { expectedVersion: recorded.length },
      );
      return { events, append };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError && attempt < 5) continue;
      throw err;
    }
  }
}
