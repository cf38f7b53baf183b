import type { Logger } from '@nestjs/common';
import {
  eventTypeFilter,
  excludeSystemEvents,
  type AllStreamSubscription,
  type EventStoreDBClient,
  type ReadPosition,
} from '@eventstore/db-client';
import type { RecordedEvent, SubscribeOptions } from './event-store.port';
import type { AllStream } from './eventstoredb-all';
import { isRetryable, toPortError } from './eventstoredb-errors';
import { isSystemType, messageOf, positionOf, toBigPosition, toRecorded, typesRegex } from './eventstoredb-mappings';

/** Backoff between resubscriptions after a dropped subscription: doubles from the first to the last. */
const RESUBSCRIBE_MIN_MS = 100;
const RESUBSCRIBE_MAX_MS = 5_000;

const ABORTED = Symbol('aborted');

/**
 * The port's subscription on EventStoreDB: a catch-up subscription to `$all` with a server-side filter (the types
 * asked for, or no system events), delivering each event after `from` once, in order. A dropped subscription (a
 * lost connection, a restarted node, a change of leader) is resumed after the last event delivered, with backoff;
 * a refusal of the credentials ends it with EventStoreRefusedError (resubscribing cannot help). Ends when
 * `signal` aborts.
 */
export async function* subscribeToAll(
  client: EventStoreDBClient,
  all: AllStream,
  options: Omit<SubscribeOptions, 'signal'> & { signal: AbortSignal },
  logger: Logger,
): AsyncGenerator<RecordedEvent> {
  const { signal } = options;
  const wanted = options.types ? new Set(options.types) : null;
  const filter = wanted ? eventTypeFilter({ regex: typesRegex([...wanted]) }) : excludeSystemEvents();
  /** Everything up to this commit position has been delivered (or was before `from`). */
  let after = toBigPosition(options.from);
  /** A valid position to subscribe from (exclusive): the last record seen, once there is one. */
  let resume: ReadPosition | null = null;
  let delay = RESUBSCRIBE_MIN_MS;
  while (!signal.aborted) {
    let subscription: AllStreamSubscription | undefined;
    try {
      resume ??= await all.startFor(after);
      if (signal.aborted) return;
      subscription = client.subscribeToAll({ fromPosition: resume, resolveLinkTos: false, filter });
      // Errors reach the iterator below; this listener only keeps a late one from becoming uncaught.
      subscription.on('error', ignore);
      const iterator = subscription[Symbol.asyncIterator]();
      for (;;) {
        // Reads one event at a time: the server sends more only as the consumer takes them (backpressure).
        const next = await nextOrAbort(iterator, signal);
        if (next === ABORTED) return;
        if (next.done) throw new Error('the server ended the subscription');
        delay = RESUBSCRIBE_MIN_MS;
        const position = positionOf(next.value);
        if (!position || position.commit <= after) continue;
        resume = position;
        after = position.commit;
        const recorded = toRecorded(next.value);
        if (!recorded || (wanted ? !wanted.has(recorded.type) : isSystemType(recorded.type))) continue;
        yield recorded;
        if (signal.aborted) return;
      }
    } catch (err) {
      if (signal.aborted) return;
      if (!isRetryable(err)) throw toPortError(err, 'subscribe to $all');
      logger.warn(`Subscription to $all dropped (${messageOf(err)}); resubscribing after position ${after} in ${delay} ms`);
    } finally {
      if (subscription) closeSubscription(subscription);
    }
    await sleep(delay, signal);
    delay = Math.min(delay * 2, RESUBSCRIBE_MAX_MS);
  }
}

function ignore(): void {
  // An error after the subscription was given up.
}

/** The next item, or ABORTED as soon as the signal aborts (the pending read is then abandoned). */
function nextOrAbort<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T> | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  const next = iterator.next();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      next.catch(ignore); // abandoned: its outcome no longer matters
      resolve(ABORTED);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    next.then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Cancels the gRPC call and ends the stream, without waiting for the server. */
function closeSubscription(subscription: AllStreamSubscription): void {
  subscription.unsubscribe().catch(ignore);
  subscription.destroy();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
