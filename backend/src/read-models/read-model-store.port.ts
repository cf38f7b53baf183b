/**
 * The read-model store port. Adapters: in memory (embedded default) and MongoDB (production); both pass
 * `read-model-store.conformance.ts`.
 *
 * Every document remembers the global position of the last event applied to it (`_position`); `put` writes
 * only when the new position is greater, so a duplicate or stale event changes nothing.
 */

export interface StoredDoc {
  _id: string;
  _position: number;
  [field: string]: unknown;
}

export type Query = Record<string, string | number | boolean | null>;

export interface FindOptions {
  /** Sort by one field. */
  sort?: { field: string; direction: 'asc' | 'desc' };
  limit?: number;
}

/** One document write of `bulkPut`: `put`'s arguments. */
export interface BulkEntry {
  id: string;
  doc: object | null;
  position: number;
}

export interface ReadModelStore {
  /** Declares an equality index used by `find` (idempotent). */
  ensureIndex(collection: string, field: string): Promise<void>;
  get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null>;
  /** Documents whose fields equal every value of `query`; a field holding an array matches when it contains the value. */
  find<T extends object>(collection: string, query: Query, options?: FindOptions): Promise<(T & StoredDoc)[]>;
  /**
   * Upserts (or, with `doc === null`, deletes) the document unless the stored one already has
   * `_position >= position`. Returns whether it was written. A deletion is kept as a tombstone so that a
   * replayed older event cannot bring the document back.
   */
  put(collection: string, id: string, doc: object | null, position: number): Promise<boolean>;
  /**
   * Many `put`s of one collection at once, each with its guard (what a catch-up or a rebuild writes per batch:
   * one transaction on SQLite, one unordered bulk write on MongoDB). Returns how many were written. The store
   * keeps none of the given objects: they may be shared with the caller's later documents.
   */
  bulkPut(collection: string, entries: readonly BulkEntry[]): Promise<number>;
  getCheckpoint(name: string): Promise<number>;
  setCheckpoint(name: string, position: number): Promise<void>;
  /** Removes every document of a collection (used to rebuild). */
  dropCollection(collection: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Checkpoint holding the code version of a projection its read models were built with (`$code:<projection>`; see
 * pipeline/catch-up.ts): 0 makes the next start-up catch-up rebuild the projection.
 */
export const codeVersionKey = (projection: string) => `$code:${projection}`;

/** Nest injection token of the ReadModelStore. */
export const READ_MODELS = 'ReadModelStore';
