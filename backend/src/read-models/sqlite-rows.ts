import { adoptFrozen, keysOf, valueAt } from './in-memory-read-model-store';
import type { StoredDoc } from './read-model-store.port';
import type { StoredRow } from './sqlite-read-model-file';

/* The rows of SqliteReadModelStore: how documents and index keys are serialised and inserted in bulk. */

/**
 * A Bloom filter of (collection, id) pairs, of a fixed size (4 MiB): `has` is false only for a pair never added;
 * true may be wrong (then the file is read, as without the filter). A few million ids keep it well below 10 %.
 */
export class IdFilter {
  private static readonly BITS = 1 << 25;
  private bits: Uint32Array | null = null;

  add(c: number, id: string): void {
    const bits = (this.bits ??= new Uint32Array(IdFilter.BITS >>> 5));
    let h1 = IdFilter.hash(c, id, 0x811c9dc5);
    const h2 = IdFilter.hash(c, id, 0x9747b28c) | 1;
    for (let k = 0; k < 3; k++, h1 = (h1 + h2) | 0) {
      const bit = h1 & (IdFilter.BITS - 1);
      bits[bit >>> 5] |= 1 << (bit & 31);
    }
  }

  has(c: number, id: string): boolean {
    const bits = this.bits;
    if (!bits) return false;
    let h1 = IdFilter.hash(c, id, 0x811c9dc5);
    const h2 = IdFilter.hash(c, id, 0x9747b28c) | 1;
    for (let k = 0; k < 3; k++, h1 = (h1 + h2) | 0) {
      const bit = h1 & (IdFilter.BITS - 1);
      if ((bits[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  private static hash(c: number, id: string, seed: number): number {
    let h = Math.imul(seed ^ c, 0x01000193);
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    return (h ^ (h >>> 13)) >>> 0;
  }
}

export const NO_KEYS: readonly string[] = [];

/** The index keys of a document's field, as the idx table holds them. */
export function indexKeys(doc: StoredDoc, field: string): string[] {
  return keysOf(valueAt(doc, field)).map((k) => JSON.stringify(k));
}

/** Whether JSON stores a document as put's frozen copy would be stored: plain data, without guard fields of its own. */
export function isPlainData(doc: object): boolean {
  const proto = Object.getPrototypeOf(doc);
  return (proto === Object.prototype || proto === null) && !Object.hasOwn(doc, '_id') && !Object.hasOwn(doc, '_position') && !('toJSON' in doc);
}

/** A document's stored JSON: its fields, then `_id` and `_position` (what put's copy serialises to). */
export function storedJson(doc: object | null, id: string, position: number): string | null {
  if (doc === null) return null;
  const json = JSON.stringify(doc);
  const guard = `"_id":${JSON.stringify(id)},"_position":${JSON.stringify(position)}}`;
  return json === '{}' ? `{${guard}` : `${json.slice(0, -1)},${guard}`;
}

export function compareRows(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/** Parsed documents per collection, at most `size` of them: crude but bounded, it starts over when full (the file has everything). */
export class DocCache<V> {
  private entries = new Map<number, Map<string, V>>();
  private count = 0;

  constructor(private readonly size: number) {}

  get(c: number, id: string): V | undefined {
    return this.entries.get(c)?.get(id);
  }

  set(c: number, id: string, value: V): void {
    if (this.count >= this.size) {
      this.entries = new Map();
      this.count = 0;
    }
    let cached = this.entries.get(c);
    if (!cached) this.entries.set(c, (cached = new Map()));
    if (!cached.has(id)) this.count++;
    cached.set(id, value);
  }

  delete(c: number, id: string): void {
    if (this.entries.get(c)?.delete(id)) this.count--;
  }

  dropCollection(c: number): void {
    const cached = this.entries.get(c);
    if (!cached) return;
    this.count -= cached.size;
    this.entries.delete(c);
  }
}

/** A document's state as the store knows it: a document, or a tombstone (doc null) at a position. */
export interface Entry {
  doc: StoredDoc | null;
  position: number;
}
/** No row at all (never written, or dropped). */
export const ABSENT = 0 as const;
export type State = Entry | typeof ABSENT;

export interface Pending {
  collection: number;
  id: string;
  /** The new state as reads see it; null until read when bulkPut wrote it (then parsed from `json`). */
  next: Entry | null;
  position: number;
  /** The stored form when bulkPut wrote it (serialised at once: no copy of its input kept); else made at the commit. */
  json?: string | null;
  /** The new document's index keys per indexed field, when bulkPut wrote it. */
  keys?: string[][];
  /** What the file holds now (its index keys are removed at the flush); only kept for a collection with indexes. */
  base: State;
}

/**
 * A settled commit's writes in the read cache: the state each left (when it was read while being written), else no
 * entry. A write with a newer one pending (a bulk load settles a commit while the next is staged) leaves no entry
 * either: it would outlive the newer write once that is written, and be answered and evolved from (stale reads).
 */
export function cacheCommitted(cache: DocCache<State>, writes: Map<number, Map<string, Pending>>, newer?: Map<number, Map<string, Pending>>): void {
  for (const [c, byId] of writes) {
    const newerOfCollection = newer?.get(c);
    for (const [id, w] of byId) {
      if (w.next && !newerOfCollection?.has(id)) cache.set(c, id, w.next);
      else cache.delete(c, id);
    }
  }
}

/**
 * Rows of one query kept in the read cache: a page of the rating list (a chunk or two of at most 500 ratings) is, a
 * scan of a whole collection is not (it would empty the cache of everything else, which starts over when full).
 */
export const FIND_KEPT_DOCS = 1_000;

/**
 * A committed row's document, parsed and frozen once: the read cache's when it holds that very version (a page of
 * the rating list reads the same rows again and again), else parsed, and kept there when `keep`.
 */
export function documentOfRow(cache: DocCache<State>, c: number, row: StoredRow, keep: boolean): StoredDoc {
  const cached = cache.get(c, row.id);
  if (cached !== undefined && cached !== ABSENT && cached.position === row.position && cached.doc) return cached.doc;
  const doc = adoptFrozen(JSON.parse(row.doc) as StoredDoc);
  if (keep) cache.set(c, row.id, { doc, position: row.position });
  return doc;
}
