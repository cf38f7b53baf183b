import {
  MongoBulkWriteError,
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Filter,
  type Sort,
} from 'mongodb';
import { FindOptions, Query, ReadModelStore, StoredDoc } from './read-model-store.port';

/** A stored read-model document: the fields, the position of the last event applied, a deletion marker. */
interface RmDoc {
  _id: string;
  _position: number;
  /** Set on a tombstone (a deleted document), which has no other field. Reserved: never a projector's field. */
  _deleted?: true;
  [field: string]: unknown;
}

interface CheckpointDoc {
  _id: string;
  position: number;
}

export interface MongoReadModelStoreOptions {
  /** The database; default: the one named in the connection string (or the client's default). */
  dbName?: string;
  /** Prefix of the MongoDB collection of each read-model collection, so that a database can be shared. */
  collectionPrefix?: string;
  /** The MongoDB collection holding the projections' checkpoints. */
  checkpointsCollection?: string;
}

export interface BulkPutEntry {
  id: string;
  doc: object | null;
  position: number;
}

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;

/**
 * The production read-model store, on MongoDB. One MongoDB collection per read-model collection (`rm_<name>`),
 * documents `{ _id, _position, ...fields }`. A write is a conditional replace that only matches a document
 * with a lower position (or none), so a duplicate or stale event changes nothing, even with several workers.
 * A deletion is a tombstone `{ _id, _deleted: true, _position }`, hidden from `get` and `find`.
 *
 * Queries follow MongoDB's equality semantics, which the in-memory adapter copies: a value matches an equal
 * field, an array field containing it, and `null` also matches a missing field; fields may be dotted paths.
 */
export class MongoReadModelStore implements ReadModelStore {
  private readonly client: MongoClient;
  private readonly ownsClient: boolean;
  private readonly db: Db;
  private readonly prefix: string;
  private readonly checkpoints: Collection<CheckpointDoc>;

  /**
   * @param client a connection string (the store then owns the client and closes it) or a client shared with
   *   others (left open by `close`).
   */
  constructor(client: string | MongoClient, options: MongoReadModelStoreOptions = {}) {
    if (typeof client === 'string') {
      // The driver connects on first use. `undefined` fields are left out, as the in-memory store's copies do.
      this.client = new MongoClient(client, { ignoreUndefined: true });
      this.ownsClient = true;
    } else {
      this.client = client;
      this.ownsClient = false;
    }
    this.db = this.client.db(options.dbName);
    this.prefix = options.collectionPrefix ?? 'rm_';
    this.checkpoints = this.db.collection<CheckpointDoc>(options.checkpointsCollection ?? 'checkpoints');
  }

  async ensureIndex(collection: string, field: string): Promise<void> {
    // Idempotent on the server: the same key pattern is a no-op.
    await this.collection(collection).createIndex({ [field]: 1 });
  }

  async get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null> {
    const doc = await this.collection(collection).findOne({ _id: id, ...NOT_DELETED });
    return doc as (T & StoredDoc) | null;
  }

  async find<T extends object>(
    collection: string,
    query: Query,
    options: FindOptions = {},
  ): Promise<(T & StoredDoc)[]> {
    let cursor = this.collection(collection).find(findFilter(query));
    if (options.sort) cursor = cursor.sort(sortSpec(options.sort));
    // As in MongoDB (and the in-memory store), a limit of 0 means no limit.
    if (options.limit && options.limit > 0) cursor = cursor.limit(Math.floor(options.limit));
    return (await cursor.toArray()) as (T & StoredDoc)[];
  }

  async put(collection: string, id: string, doc: object | null, position: number): Promise<boolean> {
    const target = this.collection(collection);
    const replacement = storedFields(doc, position);
    // Twice at most: an upsert racing another one for a new id fails on the duplicate key although it may be
    // the newer; the second attempt sees the document and decides by position.
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await target.replaceOne(guardFilter(id, position), replacement, {
          upsert: true,
          ignoreUndefined: true,
        });
        return result.matchedCount + result.upsertedCount > 0;
      } catch (err) {
        // The document exists with this position or a higher one: the upsert's insert collided with it.
        if (isDuplicateKey(err) && attempt >= 2) return false;
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }

  /**
   * Writes many documents in one round trip, each with `put`'s guard (not in the port: used by rebuilds).
   * Returns how many were written; a stale or duplicate entry is skipped, not an error.
   */
  async bulkPut(collection: string, entries: readonly BulkPutEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    const target = this.collection(collection);
    const operations: AnyBulkWriteOperation<RmDoc>[] = entries.map((entry) => ({
      replaceOne: {
        filter: guardFilter(entry.id, entry.position),
        replacement: storedFields(entry.doc, entry.position),
        upsert: true,
      },
    }));
    let written: number;
    let collided: number[] = [];
    try {
      const result = await target.bulkWrite(operations, { ordered: false, ignoreUndefined: true });
      written = result.matchedCount + result.upsertedCount;
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) throw err;
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      if (err.err || errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
      written = err.matchedCount + err.upsertedCount;
      collided = errors.map((e) => e.index);
    }
    // A collision is normally a stale entry; one racing a concurrent insert is decided again, alone.
    for (const index of collided) {
      const entry = entries[index];
      if (await this.put(collection, entry.id, entry.doc, entry.position)) written++;
    }
    return written;
  }

  async getCheckpoint(name: string): Promise<number> {
    const checkpoint = await this.checkpoints.findOne({ _id: name });
    return checkpoint?.position ?? 0;
  }

  async setCheckpoint(name: string, position: number): Promise<void> {
    await this.checkpoints.updateOne({ _id: name }, { $set: { position } }, { upsert: true });
  }

  async dropCollection(collection: string): Promise<void> {
    const target = this.collection(collection);
    // Dropping is much faster than deleting every document, but drops the indexes: they are declared again,
    // as the in-memory store keeps them (a rebuild replays into an emptied collection with its indexes).
    let indexes: IndexInfo[];
    try {
      indexes = (await target.listIndexes().toArray()) as IndexInfo[];
    } catch (err) {
      if (isNamespaceNotFound(err)) return;
      throw err;
    }
    try {
      await target.drop();
    } catch (err) {
      if (!isNamespaceNotFound(err)) throw err;
    }
    for (const index of indexes) {
      if (index.name === '_id_') continue;
      await target.createIndex(index.key, {
        name: index.name,
        ...(index.unique !== undefined && { unique: index.unique }),
        ...(index.sparse !== undefined && { sparse: index.sparse }),
        ...(index.partialFilterExpression !== undefined && { partialFilterExpression: index.partialFilterExpression }),
      });
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  private collection(name: string): Collection<RmDoc> {
    return this.db.collection<RmDoc>(`${this.prefix}${name}`);
  }
}

interface IndexInfo {
  name: string;
  key: Record<string, 1 | -1>;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Record<string, unknown>;
}

const NOT_DELETED = { _deleted: { $exists: false } } as const;

/**
 * Matches the document `id` only when the write at `position` may replace it: none stored yet (the upsert
 * then inserts it), or one with a lower position. An equal or higher one does not match, and the upsert's
 * insert then fails on the duplicate `_id`: "not written".
 */
export function guardFilter(id: string, position: number): Filter<RmDoc> {
  return { _id: id, $or: [{ _position: { $lt: position } }, { _position: { $exists: false } }] };
}

/** What `put` stores (without `_id`, which the filter sets): the fields and the position, or a tombstone. */
export function storedFields(doc: object | null, position: number): Omit<RmDoc, '_id'> {
  if (doc === null) return { _deleted: true, _position: position };
  const { _id: _ignoredId, _deleted: _ignoredMarker, ...fields } = doc as Record<string, unknown>;
  return { ...fields, _position: position };
}

/** The filter of `find`: every query field by equality (MongoDB's own semantics), tombstones excluded. */
export function findFilter(query: Query): Filter<RmDoc> {
  for (const field of Object.keys(query)) {
    if (field.startsWith('$')) throw new RangeError(`Invalid query field ${field}`);
  }
  return { ...query, ...NOT_DELETED } as Filter<RmDoc>;
}

/** The sort of `find`: by the field, ties broken by `_id` ascending (as the in-memory store does). */
export function sortSpec(sort: NonNullable<FindOptions['sort']>): Sort {
  const direction = sort.direction === 'desc' ? -1 : 1;
  return sort.field === '_id' ? { _id: direction } : { [sort.field]: direction, _id: 1 };
}

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && Number(err.code) === DUPLICATE_KEY;
}

function isNamespaceNotFound(err: unknown): boolean {
  return (
    err instanceof MongoServerError &&
    (Number(err.code) === NAMESPACE_NOT_FOUND || /ns (does )?not (found|exist)/i.test(err.message))
  );
}
