import { type Collection, MongoClient } from 'mongodb';
import { MONGO_DB_OPTIONS, mongoClientOptions, type RetryOptions, withMongoRetry } from '../read-models/mongo-durability';
import type { KeyRecord } from './key-store';
import { CachedKeyStore, RECORDS_PAGE } from './key-stores';

/* The MongoDB adapter of the key-store port, in a file of its own: the embedded default never loads the driver. */

interface KeyDoc {
  _id: string;
  key: Buffer | null;
  destroyedAt?: Date;
}

/** The key bytes of a document (the driver returns a BSON Binary), null for a tombstone. */
function keyBytes(doc: KeyDoc): Buffer | null {
  if (!doc.key) return null;
  const key = doc.key as unknown as { buffer?: Uint8Array } | Buffer;
  return Buffer.isBuffer(key) ? key : Buffer.from((key as { buffer: Uint8Array }).buffer);
}

/**
 * MongoDB collection `user-keys` (in the MONGO_URL database, apart from the event store). Written at `w: majority`
 * and read at read concern `majority` (a key, or its destruction, never rolls back after a failover), not-primary
 * and network errors retried (bounded; every write is idempotent): see mongo-durability.ts.
 */
export class MongoKeyStore extends CachedKeyStore {
  private readonly client: MongoClient;
  private readonly ownsClient: boolean;
  private readonly keys: Collection<KeyDoc>;
  private readonly retry: RetryOptions;

  /** @param client a connection string (the store owns the client) or a client shared with others (left open). */
  constructor(client: string | MongoClient, options: { dbName?: string; collection?: string; retry?: RetryOptions } = {}) {
    super();
    this.ownsClient = typeof client === 'string';
    this.client = typeof client === 'string' ? new MongoClient(client, mongoClientOptions()) : client;
    this.keys = this.client.db(options.dbName, MONGO_DB_OPTIONS).collection<KeyDoc>(options.collection ?? 'user-keys');
    this.retry = options.retry ?? {};
  }

  protected async load(userId: string): Promise<Buffer | null | undefined> {
    const doc = await withMongoRetry(`reading the key of ${userId}`, () => this.keys.findOne({ _id: userId }), { attempts: 2, ...this.retry });
    return doc ? keyBytes(doc) : undefined;
  }

  async *records(): AsyncGenerator<KeyRecord> {
    // The cursor fetches a batch at a time from the server.
    for await (const doc of this.keys.find({}, { sort: { _id: 1 }, batchSize: RECORDS_PAGE })) {
      yield { userId: doc._id, key: keyBytes(doc), destroyedAt: doc.key ? null : (doc.destroyedAt ?? null) };
    }
  }

  protected async insertIfAbsent(userId: string, key: Buffer): Promise<void> {
    try {
      await withMongoRetry(`the key of ${userId}`, () => this.keys.updateOne({ _id: userId }, { $setOnInsert: { key } }, { upsert: true }), this.retry);
    } catch (err) {
      // Two upserts at once: one inserts, the other hits the unique _id; the first key stands.
      if ((err as { code?: number }).code !== 11000) throw err;
    }
  }

  protected async tombstone(userId: string, at: Date): Promise<void> {
    await withMongoRetry(
      `destroying the key of ${userId}`,
      // $min: destroying again (or restoring a tombstone) keeps the first time, as the SQLite store does.
      () => this.keys.updateOne({ _id: userId }, { $set: { key: null }, $min: { destroyedAt: at } }, { upsert: true }),
      this.retry,
    );
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}
