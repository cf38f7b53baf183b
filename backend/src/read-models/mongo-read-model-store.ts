import {
  MongoBulkWriteError,
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type BulkWriteResult,
  type Collection,
  type CreateCollectionOptions,
  type CreateIndexesOptions,
  type Db,
  type Document,
  type Filter,
  type Sort,
} from 'mongodb';
import { MONGO_DB_OPTIONS, mongoClientOptions, MongoOperationError, withMongoRetry, type RetryOptions } from './mongo-durability';
import type { BulkEntry, FindOptions, Query, ReadModelStore, StoredDoc } from './read-model-store.port';

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
  /** How not-primary and network errors are retried (tests shorten the backoff). */
  retry?: RetryOptions;
}

export type BulkPutEntry = BulkEntry;

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const NAMESPACE_EXISTS = 48;

/**
 * The production read-model store, on MongoDB. One MongoDB collection per read-model collection (`rm_<name>`),
 * documents `{ _id, _position, ...fields }`. A write is a conditional replace that only matches a document
 * with a lower position (or none), so a duplicate or stale event changes nothing, even with several workers.
 * A deletion is a tombstone `{ _id, _deleted: true, _position }`, hidden from `get` and `find`.
 *
 * Queries follow MongoDB's equality semantics, which the in-memory adapter copies: a value matches an equal
 * field, an array field containing it, and `null` also matches a missing field; fields may be dotted paths.
 *
 * Durability (mongo-durability.ts): writes at `w: majority`, reads at read concern `majority`, not-primary and
 * network errors retried (bounded), and a write that MongoDB did not acknowledge, or a bulk write whose counts
 * do not add up, throws a MongoOperationError: the projection stops on that event instead of skipping it.
 */
export class MongoReadModelStore implements ReadModelStore {
  private readonly client: MongoClient;
  private readonly ownsClient: boolean;
  private readonly db: Db;
  private readonly prefix: string;
  private readonly checkpoints: Collection<CheckpointDoc>;
  private readonly retry: RetryOptions;

  /**
   * @param client a connection string (the store then owns the client and closes it) or a client shared with
   *   others (left open by `close`).
   */
  constructor(client: string | MongoClient, options: MongoReadModelStoreOptions = {}) {
    if (typeof client === 'string') {
      // The driver connects on first use. `undefined` fields are left out, as the in-memory store's copies do.
      this.client = new MongoClient(client, mongoClientOptions({ ignoreUndefined: true }));
      this.ownsClient = true;
    } else {
      this.client = client;
      this.ownsClient = false;
    }
    // The concerns are set on the database handle too, so that they hold on a client shared with others.
    this.db = this.client.db(options.dbName, MONGO_DB_OPTIONS);
    this.retry = options.retry ?? {};
    this.prefix = options.collectionPrefix ?? 'rm_';
    this.checkpoints = this.db.collection<CheckpointDoc>(options.checkpointsCollection ?? 'checkpoints');
  }

  async ensureIndex(collection: string, field: string): Promise<void> {
    // Idempotent on the server: the same key pattern is a no-op.
    await this.write(`the index ${field} of ${this.name(collection)}`, () => this.collection(collection).createIndex({ [field]: 1 }));
  }

  async get<T extends object>(collection: string, id: string): Promise<(T & StoredDoc) | null> {
    const doc = await this.read(`reading ${id} from ${this.name(collection)}`, () => this.collection(collection).findOne({ _id: id, ...NOT_DELETED }));
    return doc as (T & StoredDoc) | null;
  }

  async find<T extends object>(
    collection: string,
    query: Query,
    options: FindOptions = {},
  ): Promise<(T & StoredDoc)[]> {
    const docs = await this.read(`a query of ${this.name(collection)}`, () => {
      let cursor = this.collection(collection).find(findFilter(query));
      if (options.sort) cursor = cursor.sort(sortSpec(options.sort));
      // As in MongoDB (and the in-memory store), a limit of 0 means no limit.
      if (options.limit && options.limit > 0) cursor = cursor.limit(Math.floor(options.limit));
      return cursor.toArray();
    });
    return docs as (T & StoredDoc)[];
  }

  async put(collection: string, id: string, doc: object | null, position: number): Promise<boolean> {
    const target = this.collection(collection);
    const replacement = storedFields(doc, position);
    // Twice at most: an upsert racing another one for a new id fails on the duplicate key although it may be
    // the newer; the second attempt sees the document and decides by position.
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.write(`the document ${id} of ${this.name(collection)} at position ${position}`, () =>
          target.replaceOne(guardFilter(id, position), replacement, { upsert: true, ignoreUndefined: true }),
        );
        if (!result.acknowledged) throw new MongoOperationError(`MongoDB did not acknowledge the document ${id} of ${this.name(collection)}`, { cause: result });
        return result.matchedCount + result.upsertedCount > 0;
      } catch (err) {
        // The document exists with this position or a higher one: the upsert's insert collided with it.
        if (isDuplicateKey(err) && attempt >= 2) return false;
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }

  /**
   * Writes many documents in one round trip, each with `put`'s guard (an unordered bulk write, majority
   * write concern like every write here).
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
    const what = `${entries.length} documents of ${this.name(collection)} (positions ${entries[0].position}..${entries[entries.length - 1].position})`;
    const { applied, collided } = await this.write(what, () => unorderedBulkWrite(target, operations));
    // Every entry is accounted for: replaced or inserted, or refused as stale (a duplicate _id). Anything else
    // would be a document silently not written.
    if (applied + collided.length !== entries.length) {
      throw new MongoOperationError(
        `MongoDB accounted for ${applied + collided.length} of ${what} (${applied} written, ${collided.length} stale): the batch is not counted as done`,
        { cause: { applied, collided } },
      );
    }
    let written = applied;
    // A collision is normally a stale entry; one racing a concurrent insert is decided again, alone.
    for (const index of collided) {
      const entry = entries[index];
      if (await this.put(collection, entry.id, entry.doc, entry.position)) written++;
    }
    return written;
  }

  async getCheckpoint(name: string): Promise<number> {
    const checkpoint = await this.read(`the checkpoint ${name}`, () => this.checkpoints.findOne({ _id: name }));
    return checkpoint?.position ?? 0;
  }

  async setCheckpoint(name: string, position: number): Promise<void> {
    await this.write(`the checkpoint ${name} at ${position}`, () =>
      this.checkpoints.updateOne({ _id: name }, { $set: { position } }, { upsert: true }),
    );
  }

  async dropCollection(collection: string): Promise<void> {
    // Dropping is much faster than deleting every document, but drops the collection's options (a default
    // collation) and its indexes (TTL, collation, unique, partial): both are recreated as they were, so that a
    // rebuild replays into an emptied collection that behaves as before.
    const layout = await this.layoutOf(collection);
    if (!layout) return;
    await this.write(`dropping ${this.name(collection)}`, async () => {
      try {
        await this.collection(collection).drop();
      } catch (err) {
        if (!isNamespaceNotFound(err)) throw err;
      }
    });
    await this.applyLayout(collection, layout);
  }

  /**
   * Gives `to` the collection options and the indexes of `from` (a rebuild's new version gets those of the
   * active one, including what an operator added: a TTL index, a collation). Nothing when `from` does not exist.
   */
  async copyLayout(from: string, to: string): Promise<void> {
    const layout = await this.layoutOf(from);
    if (layout) await this.applyLayout(to, layout);
  }

  private async layoutOf(collection: string): Promise<CollectionLayout | null> {
    const name = this.name(collection);
    const [info] = await this.read(`the options of ${name}`, () => this.db.listCollections({ name }).toArray());
    if (!info) return null;
    const indexes = await this.read(`the indexes of ${name}`, async () => {
      try {
        return (await this.collection(collection).listIndexes().toArray()) as IndexInfo[];
      } catch (err) {
        if (isNamespaceNotFound(err)) return [];
        throw err;
      }
    });
    return { options: ((info as { options?: CreateCollectionOptions }).options ?? {}) as CreateCollectionOptions, indexes };
  }

  private async applyLayout(collection: string, layout: CollectionLayout): Promise<void> {
    const name = this.name(collection);
    if (Object.keys(layout.options).length > 0) {
      await this.write(`creating ${name}`, async () => {
        try {
          await this.db.createCollection(name, layout.options);
        } catch (err) {
          if (!(err instanceof MongoServerError && Number(err.code) === NAMESPACE_EXISTS)) throw err;
        }
      });
    }
    for (const index of layout.indexes) {
      if (index.name === '_id_') continue;
      const { v: _v, ns: _ns, key, ...options } = index;
      await this.write(`the index ${index.name} of ${name}`, () => this.collection(collection).createIndex(key, options as CreateIndexesOptions));
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  private name(collection: string): string {
    return `${this.prefix}${collection}`;
  }

  private collection(name: string): Collection<RmDoc> {
    return this.db.collection<RmDoc>(this.name(name));
  }

  private write<T>(what: string, operation: () => Promise<T>): Promise<T> {
    return withMongoRetry(what, operation, this.retry);
  }

  /** Reads are retried less: an api request waits for an answer. */
  private read<T>(what: string, operation: () => Promise<T>): Promise<T> {
    return withMongoRetry(what, operation, { attempts: 2, ...this.retry });
  }
}

/** An index as `listIndexes` describes it: the key, the name, and its options (expireAfterSeconds, collation, ...). */
interface IndexInfo extends Document {
  name: string;
  key: Record<string, 1 | -1>;
  v?: number;
  ns?: string;
}

interface CollectionLayout {
  options: CreateCollectionOptions;
  indexes: IndexInfo[];
}

/**
 * An unordered bulk write of guarded replacements: how many were applied (matched or inserted), and the indexes
 * of those refused on the duplicate `_id` (stale, or racing an insert). A write-concern error, or a write error
 * other than a duplicate key, is thrown as the driver raised it (withMongoRetry names it).
 */
async function unorderedBulkWrite(target: Collection<RmDoc>, operations: AnyBulkWriteOperation<RmDoc>[]): Promise<{ applied: number; collided: number[] }> {
  let result: BulkWriteResult;
  try {
    result = await target.bulkWrite(operations, { ordered: false, ignoreUndefined: true });
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    // A write-concern error may come alone (err.err) or beside the write errors (in the result): either throws.
    if (err.err || err.result?.getWriteConcernError()) throw err;
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
    return { applied: err.matchedCount + err.upsertedCount, collided: errors.map((e) => e.index) };
  }
  if (!result.isOk()) throw new MongoOperationError('MongoDB answered the bulk write with ok: 0', { cause: result });
  const wce = result.getWriteConcernError();
  if (wce) throw new MongoOperationError(`MongoDB did not acknowledge the bulk write with write concern w:majority (code ${wce.code}: ${wce.errmsg})`, { cause: result });
  return { applied: result.matchedCount + result.upsertedCount, collided: [] };
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
