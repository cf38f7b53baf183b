/**
 * The queue port between the relay and the projectors/reactors. Two adapters (in-process and BullMQ) pass
 * `queue.conformance.ts`.
 *
 * Contract:
 * - At-least-once delivery; a job id given twice is enqueued once while the first is still known.
 * - Jobs of one queue are handled one at a time, in the order they were added.
 * - A failing handler is retried in place (the next job waits) with backoff, up to `maxAttempts`; after that
 *   the consumer stops and reports the failure through `status()`. It never skips a job. A failure that
 *   `isOutage` says is a store being out (not the job's fault) is retried for as long as the outage lasts, its
 *   backoff capped at OUTAGE_RETRY_MAX_MS, without spending an attempt: the consumer goes on once the store is back.
 * - The handler's `signal` aborts when the consumer closes or loses the queue's ownership. A long job (a chunk
 *   of events) may then stop early by throwing: the job goes back to the head of the queue, and the attempt
 *   does not count as a failure (nor does any failure while closing).
 * - Exclusive: "one at a time, in order" holds across every consumer of a queue, also consumers in other
 *   processes (other adapter instances on the same backend). At most one of them owns the queue at a time;
 *   the others stand by (`state: 'standby'`) and one takes over when the owner closes or loses its ownership.
 *   A stopped consumer keeps its ownership (so that no other replica skips past its failed job) until closed.
 * - `runExclusive(name, fn)` runs a long-lived duty (the relay) in at most one place at a time.
 */

/** The longest wait between two tries of a job during an outage (the store back, the job goes on within it). */
export const OUTAGE_RETRY_MAX_MS = 5_000;

/** The wait before the `retry`-th try (from 1) of a job that met an outage. */
export function outageRetryDelay(backoffMs: number, retry: number): number {
  return Math.min(backoffMs * 2 ** Math.min(retry - 1, 16), OUTAGE_RETRY_MAX_MS);
}

export interface Job<T = unknown> {
  id: string;
  payload: T;
}

/** Handles one job; `signal` aborts when the consumer closes or loses the queue (see the contract above). */
export type JobHandler<T = unknown> = (job: Job<T>, signal: AbortSignal) => Promise<void>;

export interface ConsumerOptions {
  maxAttempts?: number;
  /** First retry delay in ms; doubles each attempt. */
  backoffMs?: number;
  /**
   * Called each time this consumer becomes the queue's owner, before its first job (e.g. to reload state
   * another owner may have changed). The consumer takes no job until it resolves; when it throws, the consumer
   * gives the ownership up and tries again later.
   */
  onOwned?: () => Promise<void>;
  /** Whether a handler's error is a store being out for a while (retried without spending attempts). */
  isOutage?: (err: unknown) => boolean;
  /** Called once when the consumer stops on a job that kept failing. */
  onStopped?: (failure: { error: string; jobId: string }) => void;
}

export type ConsumerState =
  /** `outage`: the error of a store it is waiting for (its job is tried again until the store answers). */
  | { state: 'running'; processed: number; outage?: string }
  /** Another consumer (here or in another process) owns the queue; this one takes over when it can. */
  | { state: 'standby'; processed: number }
  | { state: 'stopped'; processed: number; error: string; jobId: string };

export interface Consumer {
  status(): ConsumerState;
  close(): Promise<void>;
}

/** A duty started with `runExclusive`. */
export interface ExclusiveRun {
  /** True while the duty runs here (this process holds the right to run it). */
  isHeld(): boolean;
  /** Aborts the duty, waits for it to settle and gives the right up. Idempotent. */
  close(): Promise<void>;
}

export interface ExclusiveOptions {
  /** Delay before running the duty again after it threw (ms; default 1000). */
  retryMs?: number;
  /** Told about each error the duty threw (it is then run again). */
  onError?: (err: unknown) => void;
}

export interface JobQueue {
  add<T>(queue: string, jobs: readonly Job<T>[]): Promise<void>;
  consume<T>(queue: string, handler: JobHandler<T>, options?: ConsumerOptions): Consumer;
  /** Jobs waiting (not yet completed) in a queue. */
  backlog(queue: string): Promise<number>;
  /**
   * Runs `fn` while this process holds the exclusive right to `name` (at most one holder across processes).
   * `signal` aborts when the right is lost or on `close`; `fn` should then return promptly. Whenever `fn` ends
   * (by itself, by throwing, or because the right was lost) and the run is not closed, the right is acquired
   * again and `fn` runs again: it is a duty for as long as the process wants it, not a one-off task.
   */
  runExclusive(name: string, fn: (signal: AbortSignal) => Promise<void>, options?: ExclusiveOptions): ExclusiveRun;
  /**
   * Registers a listener called when the backend's connection came back after a drop: jobs queued meanwhile
   * may have been lost (Redis without persistence), so producers should re-enqueue from their sources of truth.
   * Returns the function that removes the listener. The in-process queue never calls it.
   */
  onReconnect(listener: () => void): () => void;
  close(): Promise<void>;
}

/** Nest injection token of the JobQueue. */
export const JOB_QUEUE = 'JobQueue';
