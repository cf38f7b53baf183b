import type { RecordedEvent } from '../event-store/event-store.port';
import type { StoredDoc } from '../read-models/read-model-store.port';

/**
 * Reads a document of the same projection (already up to date with every earlier event). It answers at once
 * (no promise) where the documents are in memory (a catch-up's or a rebuild's working set on SQLite or in memory):
 * `await` it, or use `whenFound` to stay synchronous then.
 */
export type Lookup = <T extends object>(collection: string, id: string) => MaybePromise<(T & StoredDoc) | null>;

export type MaybePromise<T> = T | Promise<T>;

/** `then` on a value that may be a promise: synchronous when it is not. */
export function whenFound<T, R>(value: MaybePromise<T>, then: (found: T) => R): MaybePromise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/**
 * A projector fills one collection: `ids` names the documents an event touches, `evolve` computes the new
 * document from the old one and the event (and its `context`, when it has one). `evolve` is pure, so applying an
 * event twice gives the same document (and the store's position guard makes the second application a no-op anyway).
 */
export interface Projector<D extends object = object, C = void> {
  collection: string;
  eventTypes: readonly string[];
  ids(event: RecordedEvent, lookup: Lookup): string[] | Promise<string[]>;
  /**
   * What `evolve` needs besides its document, read from other documents of the projection before the event is
   * applied to its later projectors (e.g. a day's document before the rating that changes it). Read once per event.
   */
  context?(event: RecordedEvent, lookup: Lookup): MaybePromise<C>;
  evolve(doc: D | null, event: RecordedEvent, context: C): D | null;
  /** Fields `find` is used with. */
  indexes?: readonly string[];
}

/**
 * A projection is the unit that is checkpointed, queued, rebuilt and reported: one or more projectors that
 * see the events in the same global order, so that one can look up another's documents.
 */
export interface Projection {
  name: string;
  /**
   * The version of the projection's code (1 when unset): raise it when its projectors change what they build, and
   * the embedded default rebuilds its read models at the next start (see pipeline/catch-up.ts).
   */
  version?: number;
  projectors: readonly Projector<any, any>[];
  /**
   * Collections it filled in an earlier version and fills no more: dropped with its own when it is rebuilt, so that
   * no rows are left that nothing reads or removes.
   */
  retired?: readonly string[];
}

/** The collections a projection owns: those its projectors fill, and those it retired. */
export function collectionsOf(projection: Projection): string[] {
  return [...new Set([...projection.projectors.map((p) => p.collection), ...(projection.retired ?? [])])];
}

export function eventTypesOf(projection: Projection): Set<string> {
  return new Set(projection.projectors.flatMap((p) => p.eventTypes));
}

/**
 * `{ ...base, ...fields }`, made with Object.assign: in Node 20, a spread that adds fields the object did not have
 * (`{ ...rating, chunk }`) costs microseconds (a new hidden class each time), Object.assign a tenth of one, and a
 * rebuild makes such a document for every event. The same object (an own `__proto__` field goes the spread's way).
 */
export function withFields<T extends object, F extends object>(base: T, fields: F): Omit<T, keyof F> & F {
  if (Object.hasOwn(base, '__proto__') || Object.hasOwn(fields, '__proto__')) return { ...base, ...fields };
  return Object.assign({}, base, fields);
}

/** The event's data as the type its producer declared. */
export function dataOf<D>(event: RecordedEvent): D {
  return event.data as unknown as D;
}
