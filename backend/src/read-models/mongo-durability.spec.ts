import { Logger } from '@nestjs/common';
import {
  MongoBulkWriteError,
  MongoClient,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { MongoKeyStore } from '../identity/mongo-key-store';
import { ProjectionPipeline } from '../projections/projection-pipeline';
import { PROJECTIONS } from '../projections/projections';
import { InProcessQueue } from '../queue/in-process-queue';
import { BulkWriteResult, fakeMongoClient, FakeDb, rawBulkResult, WriteConcernError, WriteError } from '../testing/fake-mongo';
import { isTransientMongoError, MongoOperationError, withMongoRetry } from './mongo-durability';
import { MongoReadModelStore } from './mongo-read-model-store';
import { VersionedReadModelStore } from './versioned-read-model-store';

Logger.overrideLogger(false);

// The driver's errors, built with its own classes, as a server would make it raise them.
const notWritablePrimary = () =>
  new MongoServerError({ message: 'not primary', code: 10107, codeName: 'NotWritablePrimary', errorLabels: ['RetryableWriteError'] });
const stepDown = () => new MongoServerError({ message: 'operation was interrupted', code: 11602, codeName: 'InterruptedDueToReplStateChange' });
const networkError = () => new MongoNetworkError('connection 4 to 10.0.0.7:27017 closed');
const wtimeout = () =>
  new MongoWriteConcernError({
    ok: 1,
    n: 1,
    writeConcernError: { code: 64, codeName: 'WriteConcernFailed', errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } },
  });
const wtimeoutEntry = () => new WriteConcernError({ code: 64, codeName: 'WriteConcernFailed', errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } });

/** What the driver raises when no primary answers within serverSelectionTimeoutMS (an election, a restart). */
const serverSelectionTimeout = () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { TopologyDescription } = require('mongodb/lib/sdam/topology_description');
  return new MongoServerSelectionError('Server selection timed out after 5000 ms', new TopologyDescription('ReplicaSetNoPrimary'));
};

const noSleep = { sleep: async () => undefined };

describe('which MongoDB errors are retried', () => {
  it('not-primary, step-down, network and server-selection errors are; write-concern timeouts, duplicate keys and validation are not', () => {
    expect(isTransientMongoError(notWritablePrimary())).toBe(true);
    expect(isTransientMongoError(stepDown())).toBe(true);
    expect(isTransientMongoError(networkError())).toBe(true);
    expect(isTransientMongoError(serverSelectionTimeout())).toBe(true);
    expect(isTransientMongoError(new MongoServerError({ message: 'x', code: 91, codeName: 'ShutdownInProgress' }))).toBe(true);
    expect(isTransientMongoError(wtimeout())).toBe(false);
    expect(isTransientMongoError(new MongoServerError({ message: 'E11000 duplicate key', code: 11000 }))).toBe(false);
    expect(isTransientMongoError(new MongoServerError({ message: 'Document failed validation', code: 121 }))).toBe(false);
    expect(isTransientMongoError(new Error('not a driver error'))).toBe(false);
  });

  it('a write-concern error labelled retryable by the driver (a step-down while waiting) is retried', () => {
    const err = new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 189, codeName: 'PrimarySteppedDown', errmsg: 'stepped down' }, errorLabels: ['RetryableWriteError'] });
    expect(isTransientMongoError(err)).toBe(true);
  });
});

describe('withMongoRetry', () => {
  it('tries again after transient errors, bounded, with doubling backoff', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withMongoRetry(
      'a write',
      async () => {
        calls++;
        if (calls < 3) throw calls === 1 ? notWritablePrimary() : networkError();
        return 'done';
      },
      { backoffMs: 10, sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).toBe('done');
    expect(calls).toBe(3);
    expect(waits).toEqual([10, 20]);
  });

  it('gives up after the last attempt with an error that says MongoDB is unavailable and what failed', async () => {
    let calls = 0;
    const failing = withMongoRetry('the checkpoint ratings at 42', async () => {
      calls++;
      throw networkError();
    }, { attempts: 4, ...noSleep });
    await expect(failing).rejects.toThrow(MongoOperationError);
    await expect(failing).rejects.toThrow(/MongoDB unavailable: the checkpoint ratings at 42 failed 4 times \(connection 4 to 10.0.0.7:27017 closed\)/);
    expect(calls).toBe(4);
  });

  it('does not retry a write-concern timeout: it is surfaced at once, naming the write', async () => {
    let calls = 0;
    const failing = withMongoRetry('the document u1 of rm_ratings at position 7', async () => {
      calls++;
      throw wtimeout();
    }, noSleep);
    await expect(failing).rejects.toThrow(/did not acknowledge the document u1 of rm_ratings at position 7 with write concern w:majority \(code 64: waiting for replication timed out\)/);
    expect(calls).toBe(1);
    await expect(failing).rejects.toMatchObject({ cause: expect.any(MongoWriteConcernError) });
  });

  it('passes any other error on unchanged (the caller decides on a duplicate key)', async () => {
    const dup = new MongoServerError({ message: 'E11000', code: 11000 });
    await expect(withMongoRetry('x', async () => Promise.reject(dup), noSleep)).rejects.toBe(dup);
  });
});

describe('MongoReadModelStore on a fake MongoDB (the driver error classes, no server)', () => {
  const store = (db = new FakeDb()) => {
    const fake = fakeMongoClient(db);
    return { ...fake, store: new MongoReadModelStore(fake.client, { retry: { backoffMs: 1 } }) };
  };

  it('asks for w:majority and read concern majority, on its own client and on a shared one', () => {
    const owned = new MongoReadModelStore('mongodb://127.0.0.1:1/joy');
    const client = (owned as unknown as { client: MongoClient }).client;
    expect(client.options.writeConcern).toMatchObject({ w: 'majority', wtimeoutMS: 10_000 });
    expect(client.options.readConcern).toMatchObject({ level: 'majority' });
    expect(client.options.retryWrites).toBe(true);
    const shared = store();
    expect(shared.dbOptions[0]).toMatchObject({ writeConcern: { w: 'majority' }, readConcern: { level: 'majority' } });
    void owned.close();
  });

  it('bulkPut keeps its semantics on the fake: newer written, stale skipped, counted', async () => {
    const { store: s } = store();
    await s.put('c', 'a', { v: 1 }, 10);
    const written = await s.bulkPut('c', [
      { id: 'a', doc: { v: 0 }, position: 5 },
      { id: 'b', doc: { v: 2 }, position: 6 },
      { id: 'b', doc: { v: 2 }, position: 6 },
    ]);
    expect(written).toBe(1);
    expect(await s.get('c', 'a')).toEqual({ _id: 'a', _position: 10, v: 1 });
    expect(await s.get('c', 'b')).toEqual({ _id: 'b', _position: 6, v: 2 });
  });

  it('bulkPut surfaces a write-concern error that comes beside duplicate-key errors (it used to count the batch as done)', async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    const raw = rawBulkResult({
      nMatched: 1,
      upserted: [{ index: 1, _id: 'b' }],
      writeErrors: [new WriteError({ code: 11000, index: 0, errmsg: 'E11000 duplicate key' })],
      writeConcernErrors: [wtimeoutEntry()],
    });
    const driverError = new MongoBulkWriteError({ message: 'E11000 duplicate key', code: 11000, writeErrors: raw.writeErrors as never }, new BulkWriteResult(raw, false));
    db.faults.push((op) => (op === 'bulkWrite' ? driverError : undefined));
    const failing = s.bulkPut('ratings', [
      { id: 'a', doc: { v: 1 }, position: 5 },
      { id: 'b', doc: { v: 1 }, position: 6 },
    ]);
    await expect(failing).rejects.toThrow(MongoOperationError);
    await expect(failing).rejects.toThrow(/did not acknowledge 2 documents of rm_ratings \(positions 5\.\.6\) with write concern w:majority \(code 64: waiting for replication timed out\)/);
  });

  it('bulkPut surfaces a write-concern error that comes alone, and does not retry it', async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    let calls = 0;
    db.faults.push((op) => {
      if (op !== 'bulkWrite') return undefined;
      calls++;
      const raw = rawBulkResult({ nMatched: 1, writeConcernErrors: [wtimeoutEntry()] });
      return new MongoBulkWriteError(wtimeoutEntry() as never, new BulkWriteResult(raw, false));
    });
    await expect(s.bulkPut('ratings', [{ id: 'a', doc: { v: 1 }, position: 5 }])).rejects.toThrow(/write concern w:majority \(code 64/);
    expect(calls).toBe(1);
  });

  it('bulkPut refuses a result whose counts do not add up: a document would be lost silently', async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    // A server answering ok with fewer documents matched or upserted than sent.
    db.ensure('rm_ratings').bulkWrite = async () => new BulkWriteResult(rawBulkResult({ nMatched: 1 }), false);
    await expect(
      s.bulkPut('ratings', [
        { id: 'a', doc: { v: 1 }, position: 5 },
        { id: 'b', doc: { v: 1 }, position: 6 },
      ]),
    ).rejects.toThrow(/MongoDB accounted for 1 of 2 documents of rm_ratings .* the batch is not counted as done/);
  });

  it('bulkPut retries a batch refused by a primary that stepped down, and writes every document once', async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    let refusals = 2;
    db.faults.push((op) => (op === 'bulkWrite' && refusals-- > 0 ? new MongoBulkWriteError(notWritablePrimary(), new BulkWriteResult(rawBulkResult(), false)) : undefined));
    const written = await s.bulkPut('ratings', [
      { id: 'a', doc: { v: 1 }, position: 5 },
      { id: 'b', doc: { v: 2 }, position: 6 },
    ]);
    expect(written).toBe(2);
    expect(refusals).toBe(-1);
    expect(await s.get('ratings', 'b')).toEqual({ _id: 'b', _position: 6, v: 2 });
  });

  it('put retries network errors (bounded) and then names what could not be written', async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    let failures = 2;
    db.faults.push((op) => (op === 'replaceOne' && failures-- > 0 ? networkError() : undefined));
    expect(await s.put('groups', 'g1', { name: 'Family' }, 3)).toBe(true);
    expect(await s.get('groups', 'g1')).toEqual({ _id: 'g1', _position: 3, name: 'Family' });

    db.faults.push((op) => (op === 'replaceOne' ? networkError() : undefined));
    await expect(s.put('groups', 'g2', { name: 'Friends' }, 4)).rejects.toThrow(
      /MongoDB unavailable: the document g2 of rm_groups at position 4 failed 5 times/,
    );
  });

  it('put surfaces a write-concern timeout instead of reporting the document written', async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    db.faults.push((op) => (op === 'replaceOne' ? wtimeout() : undefined));
    await expect(s.put('groups', 'g1', { name: 'Family' }, 3)).rejects.toThrow(/did not acknowledge the document g1 of rm_groups at position 3/);
  });

  it('reads are retried once after a not-primary error', async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    await s.put('groups', 'g1', { name: 'Family' }, 3);
    let failures = 1;
    db.faults.push((op) => (op === 'findOne' && failures-- > 0 ? stepDown() : undefined));
    expect(await s.get('groups', 'g1')).toMatchObject({ name: 'Family' });
  });

  it('dropCollection recreates the collection options (a default collation) and every index with its options (TTL, collation, partial)', async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    const collation = { locale: 'de', strength: 2 };
    await db.createCollection('rm_people', { collation });
    const people = db.collection('rm_people');
    await people.createIndex({ name: 1 }, { name: 'name_de', collation });
    await people.createIndex({ seenAt: 1 }, { name: 'seen_ttl', expireAfterSeconds: 3600 });
    await people.createIndex({ email: 1 }, { name: 'email_1', unique: true, partialFilterExpression: { email: { $exists: true } } });
    await s.put('people', 'p1', { name: 'Ada' }, 1);

    await s.dropCollection('people');
    expect(await s.get('people', 'p1')).toBeNull();
    expect(db.collections.get('rm_people')?.options).toEqual({ collation });
    const indexes = await db.collection('rm_people').listIndexes().toArray();
    expect(indexes).toEqual([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { name: 1 }, name: 'name_de', collation },
      { v: 2, key: { seenAt: 1 }, name: 'seen_ttl', expireAfterSeconds: 3600 },
      { v: 2, key: { email: 1 }, name: 'email_1', unique: true, partialFilterExpression: { email: { $exists: true } } },
    ]);
  });

  it("a rebuild's new version gets the active version's collation and TTL index", async () => {
    const db = new FakeDb();
    const { store: s } = store(db);
    const versioned = new VersionedReadModelStore(s, [{ name: 'people', collections: ['people'] }], { refreshMs: 0 });
    const collation = { locale: 'fr', strength: 1 };
    await db.createCollection('rm_people', { collation });
    await db.collection('rm_people').createIndex({ seenAt: 1 }, { name: 'seen_ttl', expireAfterSeconds: 600 });
    await versioned.refresh();

    await versioned.prepareVersion('people', 1);
    expect(db.collections.get('rm_people__v1')?.options).toEqual({ collation });
    expect(await db.collection('rm_people__v1').listIndexes().toArray()).toContainEqual({ v: 2, key: { seenAt: 1 }, name: 'seen_ttl', expireAfterSeconds: 600 });
  });
});

describe('MongoKeyStore on a fake MongoDB', () => {
  it('uses the same concerns, retries a step-down when destroying a key, and surfaces a write-concern timeout', async () => {
    const db = new FakeDb();
    const { client, dbOptions } = fakeMongoClient(db);
    const keys = new MongoKeyStore(client, { retry: { backoffMs: 1 } });
    expect(dbOptions[0]).toMatchObject({ writeConcern: { w: 'majority' }, readConcern: { level: 'majority' } });
    const key = await keys.keyFor('u1');
    expect(key).toHaveLength(32);

    let failures = 1;
    db.faults.push((op) => (op === 'updateOne' && failures-- > 0 ? notWritablePrimary() : undefined));
    await keys.destroy('u1');
    expect(db.collections.get('user-keys')?.collection.docs.get('u1')).toMatchObject({ key: null });

    db.faults.push((op) => (op === 'updateOne' ? wtimeout() : undefined));
    await expect(keys.destroy('u2')).rejects.toThrow(/did not acknowledge destroying the key of u2 with write concern w:majority/);
    await keys.close();
  });
});

describe('a projection on MongoDB that cannot get its write acknowledged', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'joy-mongo-durability-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Until 11-27 it stopped there, until an operator restarted the worker; a review found that any outage of about
  // fifty seconds (a restart, an election, a member down) stopped every projection that way.
  it('waits on that event with a status naming the write concern, keeps its checkpoint before it, and applies it once the fault is gone', async () => {
    const events = new SqliteEventStore(join(dir, 'events.sqlite'), { synchronous: 'NORMAL' });
    const db = new FakeDb();
    const { client } = fakeMongoClient(db);
    const readModels = new VersionedReadModelStore(new MongoReadModelStore(client, { retry: { backoffMs: 1 } }), PROJECTIONS.map((p) => ({ name: p.name, collections: [...new Set(p.projectors.map((x) => x.collection))] })), { refreshMs: 0 });
    let faulty = true;
    db.faults.push((op, collection) => (faulty && collection === 'rm_ratings' && op === 'replaceOne' ? wtimeout() : undefined));
    const rated = {
      type: 'RatingSubmitted',
      data: { ratingId: 'r1', userId: 'u1', relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4, overallScore: 3.6, submittedAt: '2026-11-23T08:00:00.000Z' },
      metadata: { eventId: 'e1', schemaVersion: 1, correlationId: 'c', causationId: 'c', actorUserId: 'u1', occurredAt: '2026-11-23T08:00:00.000Z' },
    };
    const { position } = await events.appendToStream('ratings-u1', [rated], { expectedVersion: 0 });

    const pipeline = new ProjectionPipeline(events, readModels, new InProcessQueue(), PROJECTIONS, { watermarkMs: 20, relayRetryMs: 20, consumer: { maxAttempts: 2, backoffMs: 1 } });
    await pipeline.start();
    const ratingsStatus = async () => (await pipeline.status()).find((p) => p.name === 'ratings');
    const waiting = Date.now() + 8000;
    while (!(await ratingsStatus())?.error && Date.now() < waiting) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100)); // many more tries than maxAttempts
    const during = await ratingsStatus();
    expect(during?.state).toBe('running');
    expect(during?.error).toMatch(/^Waiting for an outage to pass, trying again: MongoDB did not acknowledge the document .* of rm_ratings at position \d+ with write concern w:majority \(code 64: waiting for replication timed out\)/);
    expect(during?.checkpoint).toBeLessThan(position);

    faulty = false;
    const caughtUp = Date.now() + 8000;
    while (Date.now() < caughtUp && ((await ratingsStatus())?.checkpoint ?? 0) < position) await new Promise((r) => setTimeout(r, 10));
    expect(await ratingsStatus()).toMatchObject({ state: 'running', checkpoint: position });
    expect((await ratingsStatus())?.error).toBeUndefined();
    expect([...(db.collections.get('rm_ratings')?.collection.docs.values() ?? [])]).toContainEqual(expect.objectContaining({ _id: 'r1', _position: position }));
    await pipeline.stop();
    await events.close();
  });
});
