import type { BulkEntry, FindOptions, Query, ReadModelStore, StoredDoc } from './read-model-store.port';

type Scalar = string | number | boolean | null;

/**
 * Synchronous reads and guarded writes of a store held in this process: what the projection pipeline uses on
 * its hot path when a store offers it (`syncDocs()`), instead of an `await` per call. Same semantics as the
 * port's `get`, `put`, `getCheckpoint` and `setCheckpoint`.
 */
export interface SyncDocs {
  getNow<T extends object>(collection: string, id: string): (T & StoredDoc) | null;
  putNow(collection: string, id: string, doc: object | null, position: number): boolean;
  /** The position of the last write to a document, its deletion included (a tombstone's); 0 when never written. */
  positionNow(collection: string, id: string): number;
  getCheckpointNow(name: string): number;
  setCheckpointNow(name: string, position: number): void;
}

/** The synchronous access a store offers, if any (and if it can right now). */
export function syncDocsOf(store: object): SyncDocs | null {
  const offer = (store as { syncDocs?: () => SyncDocs | null }).syncDocs;
  return typeof offer === 'function' ? offer.call(store) : null;
}

interface Collection {
  docs: Map<string, StoredDoc>;
  /** Position of the deletion of each deleted id, so that an older replayed event cannot resurrect it. */
  tombstones: Map<string, number>;
  /** field → value → ids. An array field is indexed element by element; a missing field under null. */
  indexes: Map<string, Map<Scalar, Set<string>>>;
}

/**
 * The embedded read-model store: plain maps, rebuilt by replay at boot. Query semantics follow MongoDB's
 * (so both adapters agree): a query value matches an equal field, an array field containing it, and `null`
 * also matches a missing field. Fields may be dotted paths into nested objects. Documents are copied and
 * deeply frozen when written, so reads hand them out without copying and no caller can change stored state.
 * The copy shares what is already frozen by this store: a projector's new document usually keeps most of the
 * old one (`{ ...doc, recent: [rating, ...doc.recent] }`), and those parts are neither copied nor frozen again.
 */
export class InMemoryReadModelStore implements ReadModelStore, SyncDocs {
  private readonly collections = new Map<string, Collection>();
  private readonly checkpoints = new Map<string, number>();

  async ensureIndex(collection: string, field: string): Promise<void> {
    const c = this.collection(collection);
    if (c.indexes.has(field)) return;
    const index = new Map<Scalar, Set<string>>();
    c.indexes.set(field, index);
    for (const doc of c.docs.values()) addToIndex(index, field, doc);
  }

  /** This store itself, unless a subclass or wrapper changed its async methods (they would be bypassed). */
  syncDocs(): SyncDocs | null {
    const own = InMemoryReadModelStore.prototype;
    const unchanged = this.get === own.get && this.put === own.put && this.getCheckpoint === own.getCheckpoint && this.setCheckpoint === own.setCheckpoint;
    return unchanged ? this : null;
  }

  async get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null> {
    return this.getNow<T>(collection, id);
  }

  getNow<T extends object>(collection: string, id: string): (T & StoredDoc) | null {
    const doc = this.collections.get(collection)?.docs.get(id);
    return (doc as T & StoredDoc) ?? null;
  }

  async find<T extends object>(collection: string, query: Query, options: FindOptions = {}): Promise<(T & StoredDoc)[]> {
    const c = this.collections.get(collection);
    if (!c) return [];
    const fields = Object.keys(query);

    // Start from the smallest indexed candidate set; scan everything only when no query field is indexed.
    let candidates: Iterable<StoredDoc> = c.docs.values();
    let smallest: ReadonlySet<string> | undefined;
    for (const field of fields) {
      const index = c.indexes.get(field);
      if (!index) continue;
      const ids = index.get(query[field]) ?? EMPTY;
      if (!smallest || ids.size < smallest.size) smallest = ids;
    }
    if (smallest) candidates = [...smallest].map((id) => c.docs.get(id)!);

    const results: StoredDoc[] = [];
    for (const doc of candidates) {
      if (fields.every((field) => matches(valueAt(doc, field), query[field]))) results.push(doc);
    }
    return ordered(results, options) as (T & StoredDoc)[];
  }

  async put(collection: string, id: string, doc: object | null, position: number): Promise<boolean> {
    return this.putNow(collection, id, doc, position);
  }

  putNow(collection: string, id: string, doc: object | null, position: number): boolean {
    const c = this.collection(collection);
    const existing = c.docs.get(id);
    const stored = existing?._position ?? (c.tombstones.size > 0 ? c.tombstones.get(id) : undefined);
    if (stored !== undefined && stored >= position) return false;

    const indexed = c.indexes.size > 0;
    if (existing && indexed) for (const [field, index] of c.indexes) removeFromIndex(index, field, existing);
    if (doc === null) {
      c.docs.delete(id);
      c.tombstones.set(id, position);
      return true;
    }
    const next = frozenDoc(doc, id, position);
    c.docs.set(id, next);
    if (c.tombstones.size > 0) c.tombstones.delete(id);
    if (indexed) for (const [field, index] of c.indexes) addToIndex(index, field, next);
    return true;
  }

  positionNow(collection: string, id: string): number {
    const c = this.collections.get(collection);
    if (!c) return 0;
    return c.docs.get(id)?._position ?? c.tombstones.get(id) ?? 0;
  }

  async bulkPut(collection: string, entries: readonly BulkEntry[]): Promise<number> {
    let written = 0;
    for (const e of entries) if (this.putNow(collection, e.id, e.doc, e.position)) written++;
    return written;
  }

  async getCheckpoint(name: string): Promise<number> {
    return this.getCheckpointNow(name);
  }

  getCheckpointNow(name: string): number {
    return this.checkpoints.get(name) ?? 0;
  }

  async setCheckpoint(name: string, position: number): Promise<void> {
    this.setCheckpointNow(name, position);
  }

  setCheckpointNow(name: string, position: number): void {
    this.checkpoints.set(name, position);
  }

  async dropCollection(collection: string): Promise<void> {
    const c = this.collections.get(collection);
    if (!c) return;
    // Documents and tombstones go (a rebuild replays from 0); declared indexes stay, emptied.
    c.docs.clear();
    c.tombstones.clear();
    for (const index of c.indexes.values()) index.clear();
  }

  async close(): Promise<void> {
    // Nothing to release.
  }

  private collection(name: string): Collection {
    let c = this.collections.get(name);
    if (!c) {
      c = { docs: new Map(), tombstones: new Map(), indexes: new Map() };
      this.collections.set(name, c);
    }
    return c;
  }
}

const EMPTY: ReadonlySet<string> = new Set<string>();

/**
 * Marks the objects frozen by this store, with everything they reach: they can be shared by later documents as
 * they are. (`Object.isFrozen` would not do: a caller's frozen object may hold mutable ones.) A non-enumerable
 * symbol: invisible to `Object.keys`, spreads, JSON and structuredClone, and faster to test than a WeakSet.
 */
const DEEPLY_FROZEN = Symbol('deeplyFrozen');

function isDeeplyFrozen(value: object): boolean {
  return (value as { [DEEPLY_FROZEN]?: true })[DEEPLY_FROZEN] === true;
}

function freezeDeeplyFrozen<T extends object>(value: T): T {
  Object.defineProperty(value, DEEPLY_FROZEN, { value: true });
  return Object.freeze(value);
}

/**
 * Freezes a freshly made value in place (a parsed document nobody else holds) and marks it as this store's, so
 * that later documents can share its parts: the read path of a store that parses what it stores.
 */
export function adoptFrozen<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  for (const child of Object.values(value)) adoptFrozen(child);
  return freezeDeeplyFrozen(value as T & object);
}

/** The stored form of a document: a deep copy, frozen, that shares the parts this store froze before. */
export function frozenDoc(doc: object, id: string, position: number): StoredDoc {
  const next = copyFields(doc) as StoredDoc;
  next._id = id;
  next._position = position;
  return freezeDeeplyFrozen(next);
}

function frozenCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || isDeeplyFrozen(value)) return value;
  if (Array.isArray(value)) {
    // Copied in one go; only the elements that are objects need a look (an id list has none).
    const array: unknown[] = value.slice();
    for (let i = 0; i < array.length; i++) {
      const element = array[i];
      if (element !== null && typeof element === 'object') array[i] = frozenCopy(element);
    }
    return freezeDeeplyFrozen(array);
  }
  if (isPlainObject(value)) return freezeDeeplyFrozen(copyFields(value));
  // Dates and other structured-cloneable values: copied as before, frozen all the way down.
  return deepFreeze(structuredClone(value));
}

/** A plain (unfrozen) object with a frozen copy of each own enumerable field of `value`. */
function copyFields(value: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = frozenCopy((value as Record<string, unknown>)[key]);
    if (key === '__proto__') Object.defineProperty(copy, key, { value: field, enumerable: true, writable: true, configurable: true });
    else copy[key] = field;
  }
  return copy;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function valueAt(doc: StoredDoc, field: string): unknown {
  if (!field.includes('.')) return doc[field];
  let value: unknown = doc;
  for (const part of field.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function isScalar(value: unknown): value is Scalar {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** The index keys of a field value: its elements for an array, null for a missing field. */
export function keysOf(value: unknown): Scalar[] {
  if (value === undefined) return [null];
  if (Array.isArray(value)) return value.filter(isScalar);
  return isScalar(value) ? [value] : [];
}

export function matches(value: unknown, wanted: Scalar): boolean {
  if (Array.isArray(value)) return value.some((element) => element === wanted);
  if (wanted === null) return value === null || value === undefined;
  return value === wanted;
}

function addToIndex(index: Map<Scalar, Set<string>>, field: string, doc: StoredDoc): void {
  for (const key of keysOf(valueAt(doc, field))) {
    let ids = index.get(key);
    if (!ids) index.set(key, (ids = new Set()));
    ids.add(doc._id);
  }
}

function removeFromIndex(index: Map<Scalar, Set<string>>, field: string, doc: StoredDoc): void {
  for (const key of keysOf(valueAt(doc, field))) {
    const ids = index.get(key);
    if (!ids) continue;
    ids.delete(doc._id);
    if (ids.size === 0) index.delete(key);
  }
}

/** MongoDB-like order: missing/null < numbers < strings < objects/arrays < booleans. */
function rank(value: unknown): number {
  if (value === undefined || value === null) return 0;
  switch (typeof value) {
    case 'number':
      return 1;
    case 'string':
      return 2;
    case 'boolean':
      return 4;
    default:
      return 3;
  }
}

export function compare(a: unknown, b: unknown): number {
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  if (rank(a) === 3) return 0;
  return (a as number | string) < (b as number | string) ? -1 : (a as number | string) > (b as number | string) ? 1 : 0;
}

/** `find`'s answer: sorted as asked (ties by _id, so that a limited page is deterministic), then limited (0: no limit, as in MongoDB). */
export function ordered(results: StoredDoc[], options: FindOptions): StoredDoc[] {
  if (options.sort) {
    const { field, direction } = options.sort;
    const sign = direction === 'desc' ? -1 : 1;
    results.sort((a, b) => sign * compare(valueAt(a, field), valueAt(b, field)) || compare(a._id, b._id));
  }
  return options.limit && options.limit > 0 ? results.slice(0, options.limit) : results;
}
