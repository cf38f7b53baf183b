import { FindOptions, Query, ReadModelStore, StoredDoc } from './read-model-store.port';

type Scalar = string | number | boolean | null;

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
 */
export class InMemoryReadModelStore implements ReadModelStore {
  private readonly collections = new Map<string, Collection>();
  private readonly checkpoints = new Map<string, number>();

  async ensureIndex(collection: string, field: string): Promise<void> {
    const c = this.collection(collection);
    if (c.indexes.has(field)) return;
    const index = new Map<Scalar, Set<string>>();
    c.indexes.set(field, index);
    for (const doc of c.docs.values()) addToIndex(index, field, doc);
  }

  async get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null> {
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

    let results: StoredDoc[] = [];
    for (const doc of candidates) {
      if (fields.every((field) => matches(valueAt(doc, field), query[field]))) results.push(doc);
    }
    if (options.sort) {
      const { field, direction } = options.sort;
      const sign = direction === 'desc' ? -1 : 1;
      // _id breaks ties so that the order (and a limited page) is deterministic.
      results.sort((a, b) => sign * compare(valueAt(a, field), valueAt(b, field)) || compare(a._id, b._id));
    }
    // As in MongoDB, a limit of 0 means no limit.
    if (options.limit && options.limit > 0) results = results.slice(0, options.limit);
    return results as (T & StoredDoc)[];
  }

  async put(collection: string, id: string, doc: object | null, position: number): Promise<boolean> {
    const c = this.collection(collection);
    const existing = c.docs.get(id);
    const stored = existing?._position ?? c.tombstones.get(id);
    if (stored !== undefined && stored >= position) return false;

    if (existing) for (const [field, index] of c.indexes) removeFromIndex(index, field, existing);
    if (doc === null) {
      c.docs.delete(id);
      c.tombstones.set(id, position);
      return true;
    }
    const next = deepFreeze({ ...structuredClone(doc), _id: id, _position: position } as StoredDoc);
    c.docs.set(id, next);
    c.tombstones.delete(id);
    for (const [field, index] of c.indexes) addToIndex(index, field, next);
    return true;
  }

  async getCheckpoint(name: string): Promise<number> {
    return this.checkpoints.get(name) ?? 0;
  }

  async setCheckpoint(name: string, position: number): Promise<void> {
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

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function valueAt(doc: StoredDoc, field: string): unknown {
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
function keysOf(value: unknown): Scalar[] {
  if (value === undefined) return [null];
  if (Array.isArray(value)) return value.filter(isScalar);
  return isScalar(value) ? [value] : [];
}

function matches(value: unknown, wanted: Scalar): boolean {
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

function compare(a: unknown, b: unknown): number {
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  if (rank(a) === 3) return 0;
  return (a as number | string) < (b as number | string) ? -1 : (a as number | string) > (b as number | string) ? 1 : 0;
}
