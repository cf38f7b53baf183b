import { EventStoreRefusedError, EventStoreUnavailableError } from '../../event-store/event-store.port';

/** MongoDB's WriteConcernFailed: a majority did not acknowledge in time (a member down, an election). */
const WRITE_CONCERN_TIMED_OUT = 64;

/**
 * Whether a job failed because a store is out for a while (MongoDB restarting or electing a primary, EventStoreDB
 * unreachable), not because of its events: the queue then waits for the store instead of spending the job's
 * attempts, so a projection goes on by itself once the store is back. Refused credentials are not an outage: an
 * operator must act, and the projection stops naming it.
 */
export function isStoreOutage(err: unknown): boolean {
  if (err instanceof EventStoreRefusedError) return false;
  if (err instanceof EventStoreUnavailableError) return true;
  // Only MongoDB's errors (the driver's and MongoOperationError are all named "Mongo…") need the driver to be told
  // apart: the embedded default never loads it (about 0.2 s of every start).
  if (!(err instanceof Error) || !err.name.startsWith('Mongo')) return false;
  const { isTransientMongoError, MongoOperationError, writeConcernErrorOf } = require('../../read-models/mongo-durability') as typeof import('../../read-models/mongo-durability');
  const cause = err instanceof MongoOperationError ? err.cause : err;
  return isTransientMongoError(cause) || writeConcernErrorOf(cause)?.code === WRITE_CONCERN_TIMED_OUT;
}
