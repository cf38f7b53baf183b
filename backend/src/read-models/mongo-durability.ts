import {
  MongoBulkWriteError,
  MongoError,
  MongoNetworkError,
  MongoServerSelectionError,
  MongoWriteConcernError,
  ReadConcern,
  type DbOptions,
  type MongoClientOptions,
  type WriteConcernSettings,
} from 'mongodb';

/**
 * How Joy talks to MongoDB, for the read models and the key store alike:
 * - every write waits for a majority of the replica set (`w: 'majority'`), so that an acknowledged document
 *   survives a failover, and gives up after WRITE_TIMEOUT_MS with a write-concern error instead of hanging;
 * - every read is at read concern `majority`: only what can no longer be rolled back is served;
 * - a not-primary or network error (an election, a restart, a dropped connection) is retried a bounded number of
 *   times with backoff: every write here is idempotent (guarded by position, `$setOnInsert`, `$set`);
 * - anything else, a write-concern error above all, surfaces as a MongoOperationError that names what was being
 *   written and why it failed: a projection then stops with that status rather than move past a lost document.
 */
export const WRITE_TIMEOUT_MS = 10_000;
export const MONGO_WRITE_CONCERN: WriteConcernSettings = { w: 'majority', wtimeoutMS: WRITE_TIMEOUT_MS };
export const MONGO_READ_CONCERN = new ReadConcern('majority');

/** The options of a database handle: the concerns above, explicit even on a client someone else configured. */
export const MONGO_DB_OPTIONS: DbOptions = { writeConcern: MONGO_WRITE_CONCERN, readConcern: MONGO_READ_CONCERN };

/** The options of a client Joy creates from MONGO_URL. */
export function mongoClientOptions(extra: MongoClientOptions = {}): MongoClientOptions {
  return {
    writeConcern: MONGO_WRITE_CONCERN,
    readConcern: MONGO_READ_CONCERN,
    retryWrites: true,
    retryReads: true,
    // Without a server, an operation fails after this long (then is retried below) rather than after 30 s.
    serverSelectionTimeoutMS: 5_000,
    ...extra,
  };
}

/** Server error codes meaning "not the primary (any more)" or "this node is going away": try again. */
const TRANSIENT_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Whether an error is a not-primary or network error, after which the same operation may simply be sent again. */
export function isTransientMongoError(err: unknown): boolean {
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (!(err instanceof MongoError)) return false;
  return err.hasErrorLabel('RetryableWriteError') || TRANSIENT_CODES.has(Number(err.code));
}

/** A MongoDB operation that failed for good: what was being done, and why. `cause` is the driver's error. */
export class MongoOperationError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'MongoOperationError';
  }
}

/** The write-concern error a driver error carries, if any (alone, or beside write errors in a bulk write). */
export function writeConcernErrorOf(err: unknown): { code?: number; errmsg?: string } | null {
  if (err instanceof MongoWriteConcernError) return { code: Number(err.code), errmsg: err.message };
  if (err instanceof MongoBulkWriteError) {
    const wce = err.err ?? err.result?.getWriteConcernError?.();
    if (wce) return { code: wce.code, errmsg: wce.errmsg };
  }
  return null;
}

export interface RetryOptions {
  /** Attempts in all (bounded): 5 for writes by default. */
  attempts?: number;
  /** First backoff in ms; doubles each attempt. */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `operation`, again after a not-primary or network error (bounded, with backoff). A write-concern error
 * that is not transient, and a transient one that outlasts the attempts, become a MongoOperationError naming
 * `what`; any other error (a duplicate key the caller decides on, say) is passed on as it is.
 */
export async function withMongoRetry<T>(what: string, operation: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const backoffMs = options.backoffMs ?? 100;
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (err) {
      if (err instanceof MongoOperationError) throw err;
      const transient = isTransientMongoError(err);
      if (transient && attempt < attempts) {
        await sleep(backoffMs * 2 ** (attempt - 1));
        continue;
      }
      const wce = writeConcernErrorOf(err);
      if (wce && !transient) {
        throw new MongoOperationError(
          `MongoDB did not acknowledge ${what} with write concern w:majority (code ${wce.code}: ${wce.errmsg}); ` +
            'the write may not survive a failover, so it is not counted as done',
          { cause: err },
        );
      }
      if (transient) {
        throw new MongoOperationError(`MongoDB unavailable: ${what} failed ${attempt} times (${(err as Error).message})`, { cause: err });
      }
      throw err;
    }
  }
}
