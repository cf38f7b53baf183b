import { MongoBulkWriteError, MongoServerError, type MongoClient } from 'mongodb';

// The driver's own result and error classes for bulk writes (not re-exported by the package's index): a bulk
// write here fails exactly as the driver makes it fail against a server.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const bulk = require('mongodb/lib/bulk/common') as {
  BulkWriteResult: new (raw: RawBulkResult, isOrdered: boolean) => import('mongodb').BulkWriteResult;
  WriteError: new (err: { code: number; index: number; errmsg: string; op?: unknown }) => unknown;
  WriteConcernError: new (err: { code: number; codeName?: string; errmsg: string; errInfo?: object }) => unknown;
};
export const { BulkWriteResult, WriteError, WriteConcernError } = bulk;

export interface RawBulkResult {
  ok: number;
  writeErrors: unknown[];
  writeConcernErrors: unknown[];
  insertedIds: unknown[];
  nInserted: number;
  nUpserted: number;
  nMatched: number;
  nModified: number;
  nRemoved: number;
  upserted: { index: number; _id: unknown }[];
}

export function rawBulkResult(partial: Partial<RawBulkResult> = {}): RawBulkResult {
  return {
    ok: 1,
    writeErrors: [],
    writeConcernErrors: [],
    insertedIds: [],
    nInserted: 0,
    nUpserted: partial.upserted?.length ?? 0,
    nMatched: 0,
    nModified: 0,
    nRemoved: 0,
    upserted: [],
    ...partial,
  };
}

type Doc = Record<string, unknown> & { _id: string };
type Filter = Record<string, unknown>;

/** A fault to inject: return an error to throw it instead of doing the operation (op: the method's name). */
export type Fault = (op: string, collection: string, args: unknown[]) => unknown;

function valueAt(doc: Doc, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), doc);
}

/** The query operators the adapters use: equality (array containment, null for missing), $exists, $lt, $or. */
function matches(doc: Doc, filter: Filter): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    if (field === '$or') return (condition as Filter[]).some((f) => matches(doc, f));
    const value = valueAt(doc, field);
    if (condition && typeof condition === 'object' && !Array.isArray(condition)) {
      const ops = condition as Record<string, unknown>;
      if ('$exists' in ops) return (value !== undefined) === ops.$exists;
      if ('$lt' in ops) return typeof value === 'number' && value < (ops.$lt as number);
    }
    if (condition === null) return value === null || value === undefined;
    return Array.isArray(value) ? value.includes(condition) : value === condition;
  });
}

const duplicateKey = (id: string) =>
  new MongoServerError({ message: `E11000 duplicate key error collection: joy index: _id_ dup key: { _id: "${id}" }`, code: 11000 });

export class FakeCollection {
  readonly docs = new Map<string, Doc>();
  readonly indexes: Record<string, unknown>[] = [{ v: 2, key: { _id: 1 }, name: '_id_' }];

  constructor(
    private readonly db: FakeDb,
    readonly name: string,
  ) {}

  private fault(op: string, args: unknown[]): void {
    const error = this.db.faults.map((f) => f(op, this.name, args)).find(Boolean);
    if (error) throw error;
  }

  async findOne(filter: Filter) {
    this.fault('findOne', [filter]);
    return [...this.docs.values()].find((d) => matches(d, filter)) ?? null;
  }

  find(filter: Filter) {
    const cursor = {
      sort: () => cursor,
      limit: () => cursor,
      toArray: async () => {
        this.fault('find', [filter]);
        return [...this.docs.values()].filter((d) => matches(d, filter));
      },
    };
    return cursor;
  }

  /** One replacement, with the server's upsert rule: no match inserts, and an existing _id is a duplicate key. */
  private replace(filter: Filter, replacement: Record<string, unknown>, upsert: boolean) {
    const found = [...this.docs.values()].find((d) => matches(d, filter));
    if (found) {
      this.docs.set(found._id, { ...replacement, _id: found._id });
      return { matched: 1, upserted: 0 };
    }
    if (!upsert) return { matched: 0, upserted: 0 };
    const id = filter._id as string;
    if (this.docs.has(id)) throw duplicateKey(id);
    this.docs.set(id, { ...replacement, _id: id });
    return { matched: 0, upserted: 1 };
  }

  async replaceOne(filter: Filter, replacement: Record<string, unknown>, options: { upsert?: boolean } = {}) {
    this.fault('replaceOne', [filter, replacement]);
    const { matched, upserted } = this.replace(filter, replacement, options.upsert ?? false);
    return { acknowledged: true, matchedCount: matched, modifiedCount: matched, upsertedCount: upserted, upsertedId: upserted ? filter._id : null };
  }

  async updateOne(filter: Filter, update: { $set?: Record<string, unknown>; $setOnInsert?: Record<string, unknown> }, options: { upsert?: boolean } = {}) {
    this.fault('updateOne', [filter, update]);
    const found = [...this.docs.values()].find((d) => matches(d, filter));
    if (found) {
      Object.assign(found, update.$set ?? {});
      return { acknowledged: true, matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null };
    }
    if (!options.upsert) return { acknowledged: true, matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null };
    const id = filter._id as string;
    this.docs.set(id, { _id: id, ...(update.$setOnInsert ?? {}), ...(update.$set ?? {}) });
    return { acknowledged: true, matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: id };
  }

  /** An unordered bulk of replaceOne operations, failing as the driver does (MongoBulkWriteError with the result). */
  async bulkWrite(operations: { replaceOne: { filter: Filter; replacement: Record<string, unknown>; upsert?: boolean } }[]) {
    this.fault('bulkWrite', [operations]);
    const raw = rawBulkResult();
    operations.forEach(({ replaceOne: op }, index) => {
      try {
        const { matched, upserted } = this.replace(op.filter, op.replacement, op.upsert ?? false);
        raw.nMatched += matched;
        raw.nModified += matched;
        if (upserted) raw.upserted.push({ index, _id: op.filter._id });
      } catch (err) {
        raw.writeErrors.push(new WriteError({ code: 11000, index, errmsg: (err as Error).message, op }));
      }
    });
    raw.nUpserted = raw.upserted.length;
    const result = new BulkWriteResult(raw, false);
    if (raw.writeErrors.length > 0) {
      const first = raw.writeErrors[0] as { errmsg: string; code: number };
      throw new MongoBulkWriteError({ message: first.errmsg, code: first.code, writeErrors: raw.writeErrors as never }, result);
    }
    return result;
  }

  async createIndex(key: Record<string, 1 | -1>, options: Record<string, unknown> = {}) {
    this.fault('createIndex', [key, options]);
    const name = (options.name as string) ?? Object.entries(key).map(([k, v]) => `${k}_${v}`).join('_');
    if (!this.indexes.some((i) => i.name === name)) this.indexes.push({ v: 2, key, name, ...options });
    this.db.ensure(this.name);
    return name;
  }

  listIndexes() {
    return { toArray: async () => this.indexes.map((i) => ({ ...i })) };
  }

  async drop() {
    this.fault('drop', []);
    if (!this.db.collections.delete(this.name)) throw new MongoServerError({ message: 'ns not found', code: 26 });
    return true;
  }
}

export class FakeDb {
  readonly collections = new Map<string, { collection: FakeCollection; options: Record<string, unknown> }>();
  readonly faults: Fault[] = [];

  ensure(name: string, options: Record<string, unknown> = {}): FakeCollection {
    let entry = this.collections.get(name);
    if (!entry) {
      entry = { collection: new FakeCollection(this, name), options };
      this.collections.set(name, entry);
    }
    return entry.collection;
  }

  /** A handle: the collection as it is now (created by the first write, as on a server). */
  collection(name: string): FakeCollection {
    return new Proxy({} as FakeCollection, {
      get: (_target, prop) => {
        const live = this.collections.get(name)?.collection ?? new FakeCollection(this, name);
        const value = (live as unknown as Record<string | symbol, unknown>)[prop];
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const target = ['replaceOne', 'updateOne', 'bulkWrite', 'createIndex'].includes(String(prop)) ? this.ensure(name) : live;
          return (target as unknown as Record<string | symbol, (...a: unknown[]) => unknown>)[prop](...args);
        };
      },
    });
  }

  listCollections(filter: { name: string }) {
    return {
      toArray: async () => {
        const entry = this.collections.get(filter.name);
        return entry ? [{ name: filter.name, type: 'collection', options: entry.options }] : [];
      },
    };
  }

  async createCollection(name: string, options: Record<string, unknown> = {}) {
    if (this.collections.has(name)) throw new MongoServerError({ message: `Collection ${name} already exists`, code: 48 });
    this.ensure(name, options);
  }
}

/** A MongoClient stand-in: one FakeDb, and the options each `db()` handle was asked for. */
export function fakeMongoClient(db = new FakeDb()) {
  const dbOptions: unknown[] = [];
  const client = {
    db: (_name?: string, options?: unknown) => {
      dbOptions.push(options);
      return db;
    },
    close: async () => undefined,
  } as unknown as MongoClient;
  return { client, db, dbOptions };
}
