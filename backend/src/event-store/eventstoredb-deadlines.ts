import type { StreamingRead } from '@eventstore/db-client';
import { EventStoreUnavailableError } from './event-store.port';
import { within } from '../within';

/**
 * Every item of a read, or EventStoreUnavailableError when the server has not finished it within `ms`: the client
 * sets no deadline on reads (only on appends), so a hung server would hold a request forever. The read is then
 * destroyed with an error (its `cancel()` alone would end it as if complete, a silently short read) and cancelled.
 */
export async function readWithin<T>(read: StreamingRead<T>, ms: number, what: string): Promise<T[]> {
  const items: T[] = [];
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    read.destroy(new Error(`no answer within ${ms} ms`));
    read.cancel().catch(() => undefined);
  }, ms);
  try {
    for await (const item of read as AsyncIterable<T>) items.push(item);
  } catch (err) {
    if (!timedOut) throw err;
    throw new EventStoreUnavailableError(`EventStoreDB did not answer within ${ms} ms (${what}); the server is overloaded or unreachable`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
  return items;
}

/**
 * The answer of a call, or EventStoreUnavailableError when none came within `ms`. For appends: the client sends
 * their deadline to the server, which enforces it, and waits without limit itself, so a hung server would hold
 * the append forever. Whether a late append was stored is unknown; a retry with the same event ids is recognised.
 */
export function answerWithin<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  return within(call, ms, () => new EventStoreUnavailableError(`EventStoreDB did not answer within ${ms} ms (${what}); the server is overloaded or unreachable`));
}

/** The deadline of the connection string (`defaultDeadline`, ms), else the client's default of 10 s. */
export function deadlineOf(connectionString: string): number {
  const match = /[?&]default[-_]?deadline=(\d+)/i.exec(connectionString);
  return match ? Number(match[1]) : 10_000;
}
