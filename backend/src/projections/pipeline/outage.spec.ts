import { MongoNetworkError, MongoServerError, MongoWriteConcernError } from 'mongodb';
import { EventStoreRefusedError, EventStoreUnavailableError } from '../../event-store/event-store.port';
import { MongoOperationError } from '../../read-models/mongo-durability';
import { isStoreOutage } from './outage';

const wrapped = (cause: unknown) => new MongoOperationError('MongoDB unavailable: reading r1 from rm_ratings failed 2 times', { cause });
const writeConcern = (code: number) =>
  new MongoWriteConcernError({ ok: 1, n: 1, writeConcernError: { code, codeName: 'x', errmsg: 'write concern', errInfo: {} } });

describe('which failures of a job are a store being out (waited for) rather than the job failing', () => {
  it.each([
    ['MongoDB unreachable, after the store gave up retrying', wrapped(new MongoNetworkError('connection refused'))],
    ['MongoDB unreachable, straight from the driver', new MongoNetworkError('connection refused')],
    ['MongoDB electing a primary', wrapped(new MongoServerError({ message: 'interrupted', code: 11602 }))],
    ['a majority not acknowledging in time', wrapped(writeConcern(64))],
    ['EventStoreDB unreachable', new EventStoreUnavailableError('EventStoreDB is unreachable (read $all)')],
  ])('an outage: %s', (_label, err) => {
    expect(isStoreOutage(err)).toBe(true);
  });

  it.each([
    ['a projector that throws on an event', new Error("Cannot read properties of undefined (reading 'userId')")],
    ['credentials EventStoreDB refuses (an operator must act)', new EventStoreRefusedError('EventStoreDB refused the user joy')],
    ['a write concern that cannot be met at all', wrapped(writeConcern(100))],
    ['a duplicate key', new MongoServerError({ message: 'E11000 duplicate key', code: 11000 })],
  ])('not an outage: %s', (_label, err) => {
    expect(isStoreOutage(err)).toBe(false);
  });
});
